#pragma once
// What a kernel's warps wait for, and what it executes, from the stall pass's counters (profile
// --deep; NVIDIA: ncu's warp-state and instruction counters, reference/cuda.md §5.2). Stall
// reasons use one vocabulary for both vendors; the vendor's own reasons are kept beside them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>
#include <rpl/trace/source_view.hpp>
#include <rpl/trace/thread_trace.hpp>

namespace rpl::analysis {

/// An instruction that stalled most (AMD thread trace or PC sampling; NVIDIA ncu's source view).
struct HotInstruction {
  std::string isa;
  uint64_t vaddr = 0;  // AMD: in the code object; NVIDIA: offset from the kernel's first instruction
  std::string source;  // "file:line" where known
  int64_t stall = 0;   // cycles (thread trace) or stalled samples (PC sampling, ncu's warp-stall samples)
  int64_t hits = 0;    // executions or samples (NVIDIA: warp instructions executed)
  std::string reason;  // NVIDIA: the common stall reason with the most samples here; "" when unknown
};

/// A source line of the kernel with its warp-stall samples (NVIDIA, from ncu's source view).
struct HotLine {
  std::string file;
  int64_t line = 0;
  std::string text;
  int64_t samples = 0;
  double share = 0;  // of all the kernel's samples
};

struct StallAnalysis {
  std::string kernel;
  size_t measured_dispatches = 0;
  std::optional<double> issue_slot_utilization;  // 0..1
  std::optional<double> ipc;                     // warp instructions per cycle per SM
  std::optional<double> branch_efficiency;       // 0..1: branch targets uniform across a warp
  std::map<std::string, double> stalls;          // common reason -> fraction of stalled warp time, summing to 1
  std::map<std::string, double> vendor_stalls;   // the vendor's own reason -> fraction
  std::map<std::string, double> instruction_mix; // NVIDIA: fp32, fp64, fp16, tensor, integer, load_store, branch, other;
                                                 // AMD: valu, salu, vmem, smem, lds, mfma, branch, other: fractions
  std::optional<double> stall_fraction;          // AMD: stalled cycles over all cycles of the traced instructions
  std::optional<double> idle_fraction;           // AMD: idle cycles (waiting to be picked) over the same
  std::optional<double> vmem_latency_cycles;     // AMD: mean latency of a vector memory instruction
  std::vector<HotInstruction> hot;               // the ten that stalled most
  std::vector<HotLine> hot_lines;                // NVIDIA: the ten source lines with the most samples
};

/// The counters the NVIDIA stall pass asks ncu for.
std::vector<std::string> nvidia_stall_metrics();

/// The stall analysis of the kernel named `kernel` (its display name); none when none of its
/// dispatches has stall counters.
std::optional<StallAnalysis> analyze_stalls(const trace::Trace& trace, const std::string& kernel);

/// Fills s.hot and s.hot_lines from ncu's source views (profile --deep's source pass): the view of
/// s.kernel (the only one, or the one of the same function name). Returns false, changing nothing,
/// when no view is of that kernel.
bool add_source_hot_spots(StallAnalysis& s, const std::vector<trace::SourceView>& views);

/// The stall analysis of an AMD thread trace (or PC-sampling profile) of `kernel`. Error(run_failed)
/// when it recorded no wave, saying to trace another CU or launch more workgroups.
StallAnalysis analyze_thread_trace(const trace::ThreadTrace& att, const std::string& kernel);

}  // namespace rpl::analysis
