#pragma once
// The summary of a profiled program: its dominant kernel, where it ran, how long it takes, how
// stable that is, its resources and its occupancy (DESIGN.md "Output folder of profile").
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <rpl/analysis/rank_spread.hpp>
#include <rpl/analysis/stability.hpp>
#include <rpl/hal/occupancy.hpp>
#include <rpl/trace/model.hpp>

namespace rpl::analysis {

struct KernelSummary {
  std::string name;          // demangled
  std::string mangled_name;
  std::array<uint64_t, 3> grid{};   // work-items
  std::array<uint32_t, 3> block{};
  size_t dispatches = 0;
  double total_ms = 0;
  double time_fraction = 0;
  int64_t longest_dispatch_id = 0;
  double longest_dispatch_ms = 0;
};

struct GpuSummary {
  std::string vendor;        // "AMD", "NVIDIA"
  std::string architecture;  // "gfx942", "sm_90"
  std::string product;
  // The trace named the product; else product is the architecture table's typical one, whose
  // peaks and clock stand in (an H200 is taken for an H100 where the trace says only sm_90).
  bool product_recorded = false;
  std::optional<int> compute_units;
  std::optional<int> wave_size;
  std::optional<double> max_clock_mhz;
};

/// Resource fields keep AMD names on both vendors (DESIGN.md).
struct ResourceSummary {
  int64_t vgpr_per_thread = 0;
  int64_t agpr_per_thread = 0;
  int64_t sgpr_per_wave = 0;
  int64_t lds_bytes = 0;          // static + dynamic, per workgroup
  int64_t static_lds_bytes = 0;
  int64_t dynamic_lds_bytes = 0;
  bool lds_split_known = true;    // false: the trace told only lds_bytes (the two above are 0 and lds_bytes)
  bool registers_known = true;    // false: the trace records no register counts (the three above LDS are 0)
  int64_t scratch_bytes = 0;      // per work-item
  std::optional<int> barriers;    // per block, where the trace records them (else __syncthreads' one)
};

struct ProfileSummary {
  std::string backend;            // "rocm", "cuda", "wallclock"
  std::optional<KernelSummary> kernel;
  std::optional<GpuSummary> gpu;
  double runtime_ms = 0;          // mean duration of one dispatch (wallclock: of one whole run)
  Stability stability;
  std::optional<ResourceSummary> resources;
  std::optional<hal::OccupancyResult> occupancy;
  std::optional<RankSpread> ranks;  // a multi-rank job: the kernel on each rank
  std::vector<std::string> warnings;
};

struct AnalyzeOptions {
  std::optional<std::string> kernel_regex;
};

/// Everything in the summary that a trace can tell; backend "cuda" for NVIDIA traces, else "rocm".
/// Error(bad_input) as select_dominant_kernel.
ProfileSummary summarize_trace(const trace::Trace& trace, const AnalyzeOptions& options);

/// The theoretical occupancy of one dispatch: its kernel's resources at its block size on its
/// agent's architecture; none where that has no occupancy rules (why, in warnings).
std::optional<hal::OccupancyResult> dispatch_occupancy(const trace::Trace& trace, const trace::Dispatch& dispatch,
                                                       std::vector<std::string>& warnings);

/// The summary of whole-process timings (--no-rocprof): no kernel, resources or occupancy.
ProfileSummary summarize_wallclock(const std::vector<double>& run_seconds);

}  // namespace rpl::analysis
