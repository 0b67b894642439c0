// Stalls and instruction mix of an AMD thread trace (reference/rocm.md §6). Instructions are
// classed by mnemonic (MFMA is never VALU); a stalled cycle is put on the reason its instruction
// stands for: s_waitcnt waits for memory, s_barrier for the workgroup, MFMA for the matrix pipe,
// memory instructions for their queues, other vector and scalar ALU work for the busy pipe.
#include <algorithm>
#include <string_view>

#include <rpl/analysis/stalls.hpp>
#include <rpl/core/error.hpp>

#include "heaviest.hpp"

namespace rpl::analysis {
namespace {

bool starts(std::string_view s, std::string_view head) { return s.substr(0, head.size()) == head; }

std::string category_of(std::string_view isa) {
  if (starts(isa, "v_mfma") || starts(isa, "v_smfmac")) return "mfma";
  if (starts(isa, "ds_")) return "lds";
  if (starts(isa, "buffer_") || starts(isa, "global_") || starts(isa, "flat_") || starts(isa, "scratch_") ||
      starts(isa, "tbuffer_") || starts(isa, "image_")) {
    return "vmem";
  }
  if (starts(isa, "s_load") || starts(isa, "s_buffer_load") || starts(isa, "s_store") || starts(isa, "s_scratch") ||
      starts(isa, "s_dcache")) {
    return "smem";
  }
  if (starts(isa, "s_branch") || starts(isa, "s_cbranch") || starts(isa, "s_setpc") || starts(isa, "s_swappc") ||
      starts(isa, "s_call")) {
    return "branch";
  }
  if (starts(isa, "s_")) return "salu";
  if (starts(isa, "v_")) return "valu";
  return "other";
}

std::string stall_reason(std::string_view isa, const std::string& category) {
  if (starts(isa, "s_waitcnt")) return "memory_dependency";
  if (starts(isa, "s_barrier")) return "barrier";
  if (category == "mfma") return "matrix";
  if (category == "vmem" || category == "lds" || category == "smem") return "memory_throttle";
  if (category == "valu" || category == "salu") return "pipe_busy";
  if (category == "branch") return "branch";
  return "other";
}

}  // namespace

StallAnalysis analyze_thread_trace(const trace::ThreadTrace& att, const std::string& kernel) {
  StallAnalysis s;
  s.kernel = kernel;
  const bool sampled = att.pc_sampling && !att.thread_trace;
  std::map<std::string, double> mix, stalls;
  double weight = 0, stalled = 0, latency = 0, idle = 0, vmem_latency = 0, vmem_hits = 0;
  for (const auto& ins : att.code) {
    const std::string category = category_of(ins.isa);
    const double w = static_cast<double>(sampled ? ins.pc_issued + ins.pc_stalled : ins.hits);
    const double st = static_cast<double>(sampled ? ins.pc_stalled : ins.stall);
    mix[category] += w;
    weight += w;
    if (st > 0) stalls[stall_reason(ins.isa, category)] += st;
    stalled += st;
    latency += static_cast<double>(sampled ? ins.pc_issued + ins.pc_stalled : ins.latency);
    idle += static_cast<double>(ins.idle);
    if (category == "vmem" && !sampled) {
      vmem_latency += static_cast<double>(ins.latency);
      vmem_hits += static_cast<double>(ins.hits);
    }
  }
  if (weight <= 0) {
    fail(Errc::run_failed, "{}: the thread trace recorded no wave of {}: trace another CU (rocprofv3 --att-target-cu) "
                           "or launch more workgroups so that some land on the traced one",
         att.dir.string(), kernel);
  }
  s.measured_dispatches = 1;
  for (const auto& [category, w] : mix) s.instruction_mix[category] = w / weight;
  for (const auto& [reason, st] : stalls) s.stalls[reason] = st / stalled;
  if (latency + idle > 0) {
    s.stall_fraction = stalled / (latency + idle);
    if (!sampled) s.idle_fraction = idle / (latency + idle);
  }
  if (vmem_hits > 0) s.vmem_latency_cycles = vmem_latency / vmem_hits;
  if (att.wave_cycles > 0 && att.wave_instructions > 0) {
    s.ipc = static_cast<double>(att.wave_instructions) / static_cast<double>(att.wave_cycles);
  }
  const auto stall_weight = [&](const trace::TracedInstruction& ins) { return sampled ? ins.pc_stalled : ins.stall; };
  for (const auto* ins : detail::heaviest(att.code, 10, stall_weight)) {
    s.hot.push_back({ins->isa, ins->vaddr, ins->source, stall_weight(*ins),
                     sampled ? ins->pc_issued + ins->pc_stalled : ins->hits, ""});
  }
  return s;
}

}  // namespace rpl::analysis
