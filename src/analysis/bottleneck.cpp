// The bottleneck rules. Thresholds are documented in the README ("Bottleneck rules"); each rule
// has a test that makes it fire and one that does not.
#include <rpl/analysis/bottleneck.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include <rpl/core/units.hpp>


namespace rpl::analysis {
namespace {

constexpr double kShortDispatchUs = 10;    // launch overhead: dispatches shorter than this...
constexpr double kLowBusyFraction = 0.5;   // ...while the GPU is busy less than this of the span
constexpr double kNearRoofPercent = 60;    // at or above: the roof binds
constexpr double kLowOccupancy = 0.5;      // below: occupancy may limit a kernel that is not near a roof
constexpr double kLowBranchEfficiency = 0.7;
constexpr double kMinorPathShare = 0.1;    // below: a note that end-to-end gains are small

double clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

struct Words {
  const char* cu;     // "SM" / "CU"
  const char* block;  // "blocks" / "workgroups"
  const char* one_block;  // "block" / "workgroup"
  const char* shared; // "shared memory" / "LDS"
  const char* matrix; // "tensor cores" / "MFMA"
  const char* graph;  // "a CUDA graph" / "a HIP graph"
  const char* warp;   // "warp" / "wavefront"
};
Words words(const std::string& vendor) {
  if (vendor == "NVIDIA") return {"SMs", "blocks", "block", "shared memory", "tensor cores", "a CUDA graph", "warp"};
  return {"CUs", "workgroups", "workgroup", "LDS", "MFMA", "a HIP graph", "wavefront"};
}

// One rule: fires with a reason, a next step and a confidence, or says why it did not.
struct Verdict {
  RuleOutcome outcome;
  double confidence = 0;
};
using Rule = std::function<Verdict(const BottleneckInputs&, const Words&)>;

Verdict not_fired(const char* rule, std::string why) { return {{rule, false, std::move(why), ""}, 0}; }
Verdict fired(const char* rule, std::string reason, std::string next, double confidence) {
  return {{rule, true, std::move(reason), std::move(next)}, clamp01(confidence)};
}

// ncu's percentages of peak, where the kernel has no roofline position to judge it by.
std::optional<double> ncu_percent(const BottleneckInputs& in, std::optional<double> SpeedOfLight::*percent) {
  if ((in.roofline && in.roofline->position) || !in.speed_of_light) return std::nullopt;
  return (*in.speed_of_light).*percent;
}

bool near_roof(const BottleneckInputs& in) {
  if (in.roofline && in.roofline->percent_of_roof) return *in.roofline->percent_of_roof >= kNearRoofPercent;
  const auto sm = ncu_percent(in, &SpeedOfLight::sm_percent), dram = ncu_percent(in, &SpeedOfLight::dram_percent);
  return (sm && *sm >= kNearRoofPercent) || (dram && *dram >= kNearRoofPercent) ||
         (in.dram_percent_of_peak && *in.dram_percent_of_peak >= kNearRoofPercent);
}

// Why the kernel has no roofline position.
std::string no_position(const BottleneckInputs& in) {
  if (!in.roofline) return "no roofline (profile with --roofline)";
  if (!in.roofline->unplaced.empty()) return in.roofline->unplaced + ": no roofline position";
  return "no FLOPs counted: no roofline position";
}

Verdict launch_overhead(const BottleneckInputs& in, const Words& w) {
  const char* rule = "launch_overhead_bound";
  if (!in.gpu_busy_fraction) {
    return not_fired(rule, "GPU busy time unknown: the launches were timed one at a time (ncu), no gaps between them measured");
  }
  if (in.mean_dispatch_us >= kShortDispatchUs || *in.gpu_busy_fraction >= kLowBusyFraction) {
    return not_fired(rule, fmt::format("mean dispatch {:.1f} us, GPU busy {:.0f} % of the span", in.mean_dispatch_us,
                                       100 * *in.gpu_busy_fraction));
  }
  return fired(rule,
               fmt::format("mean dispatch {:.1f} us (< {:.0f} us) and the GPU busy only {:.0f} % of the time its work spans "
                           "(< {:.0f} %)",
                           in.mean_dispatch_us, kShortDispatchUs, 100 * *in.gpu_busy_fraction, 100 * kLowBusyFraction),
               fmt::format("launch fewer, larger kernels: fuse neighbouring kernels or capture the launches in {}", w.graph),
               0.6 + 0.3 * (1 - *in.gpu_busy_fraction / kLowBusyFraction));
}

Verdict small_grid(const BottleneckInputs& in, const Words& w) {
  const char* rule = "latency_bound_small_grid";
  if (!in.grid_workgroups || !in.compute_units || *in.compute_units <= 0) return not_fired(rule, "grid or GPU size unknown");
  const double fill = *in.grid_workgroups / *in.compute_units;
  if (fill >= 1) return not_fired(rule, fmt::format("{:.0f} {} fill the {} {} {:.1f} times", *in.grid_workgroups, w.block,
                                                    *in.compute_units, w.cu, fill));
  return fired(rule,
               fmt::format("a grid of {:.0f} {} on {} {} leaves {:.0f} % of them idle", *in.grid_workgroups, w.block,
                           *in.compute_units, w.cu, 100 * (1 - fill)),
               fmt::format("give every one of the {} work: more, smaller {}, or split the work (split-K, more tiles)", w.cu,
                           w.block),
               0.6 + 0.3 * (1 - fill));
}

Verdict bandwidth(const BottleneckInputs& in, const Words& w) {
  const char* rule = "memory_bandwidth_bound";
  const std::string step =
      fmt::format("move fewer bytes: fuse it with the kernels around it, reuse tiles from {}, use narrower data types", w.shared);
  const auto ncu_dram = ncu_percent(in, &SpeedOfLight::dram_percent);
  if ((!in.roofline || !in.roofline->position) && (in.dram_percent_of_peak || ncu_dram)) {
    // DRAM bytes counted (or ncu's DRAM speed of light) but no FLOPs: near the DRAM peak is near
    // that roof whatever the arithmetic, but less sure than with the roofline's position.
    const double percent = in.dram_percent_of_peak.value_or(ncu_dram.value_or(0));
    const std::string why = !in.dram_percent_of_peak ? "ncu's speed of light; no roofline position"
                            : in.roofline            ? no_position(in)
                                                     : "no FLOPs counted: no roofline position";
    std::string reason = fmt::format("DRAM at {:.1f} % of its peak ({})", percent, why);
    if (in.roofline && in.dram_percent_of_peak) {
      if (const auto& dram = in.roofline->achieved_bytes_per_s[static_cast<size_t>(hal::MemoryLevel::dram)]) {
        reason = fmt::format("DRAM {} = {:.1f} % of its peak ({})", si_units(*dram, "B/s"), percent, why);
      }
    }
    if (percent < kNearRoofPercent) return not_fired(rule, reason);
    return fired(rule, "memory-bound: " + reason, step, 0.5 + 0.3 * (std::min(percent, 100.0) - kNearRoofPercent) / (100 - kNearRoofPercent));
  }
  if (!in.roofline || !in.roofline->position) return not_fired(rule, no_position(in));
  const auto& r = *in.roofline;
  if (*r.position != "memory_bound" || *r.percent_of_roof < kNearRoofPercent) {
    return not_fired(rule, fmt::format("{} at {:.1f} % of its roof", *r.position, *r.percent_of_roof));
  }
  const auto& dram = r.achieved_bytes_per_s[static_cast<size_t>(hal::MemoryLevel::dram)];
  return fired(rule,
               fmt::format("memory-bound: DRAM {} = {:.1f} % of the roof at {:.3g} FLOP/byte", si_units(dram.value_or(0), "B/s"),
                           *r.percent_of_roof, r.operational_intensity.value_or(0)),
               step, 0.6 + 0.3 * (*r.percent_of_roof - kNearRoofPercent) / (100 - kNearRoofPercent));
}

Verdict compute(const BottleneckInputs& in, const Words& w) {
  const char* rule = "compute_bound";
  if (const auto sm = ncu_percent(in, &SpeedOfLight::sm_percent)) {
    // ncu's SM speed of light: its busiest pipeline or issue near its peak, whatever the FLOPs.
    const std::string reason = fmt::format("SM throughput at {:.1f} % of its peak (ncu's speed of light: its busiest pipeline or "
                                           "issue; no roofline position)",
                                           *sm);
    if (*sm < kNearRoofPercent) return not_fired(rule, reason);
    return fired(rule, "compute-bound: " + reason,
                 fmt::format("find its busiest pipeline (ncu's Compute Workload Analysis) and give it less work: {} or a lower "
                             "precision for the arithmetic, fewer instructions",
                             w.matrix),
                 0.5 + 0.3 * (std::min(*sm, 100.0) - kNearRoofPercent) / (100 - kNearRoofPercent));
  }
  if (!in.roofline || !in.roofline->position) return not_fired(rule, no_position(in));
  const auto& r = *in.roofline;
  if (*r.position != "compute_bound" || *r.percent_of_roof < kNearRoofPercent) {
    return not_fired(rule, fmt::format("{} at {:.1f} % of its roof", *r.position, *r.percent_of_roof));
  }
  const bool matrix = r.binding_ceiling && r.binding_ceiling->rfind("matrix", 0) == 0;
  return fired(rule,
               fmt::format("compute-bound: {} = {:.1f} % of the {} roof", si_units(r.achieved_flops_per_s.value_or(0), "FLOP/s"),
                           *r.percent_of_roof, r.binding_ceiling.value_or("compute")),
               matrix ? std::string("use a lower precision (FP8, sparsity) or do less arithmetic")
                      : fmt::format("move the arithmetic to {} or a lower precision, or remove instructions", w.matrix),
               0.6 + 0.3 * (*r.percent_of_roof - kNearRoofPercent) / (100 - kNearRoofPercent));
}

Verdict occupancy(const BottleneckInputs& in, const Words& w) {
  const char* rule = "occupancy_limited";
  if (!in.occupancy) return not_fired(rule, "occupancy unknown");
  if (*in.occupancy >= kLowOccupancy) return not_fired(rule, fmt::format("occupancy {:.1f} %", 100 * *in.occupancy));
  if (near_roof(in)) return not_fired(rule, "low occupancy, but the kernel is near a roof already");
  std::string reason = fmt::format("theoretical occupancy {:.1f} % (< {:.0f} %), limited by {}", 100 * *in.occupancy,
                                   100 * kLowOccupancy, in.occupancy_limiter);
  if (in.roofline && in.roofline->percent_of_roof) {
    reason += fmt::format(", and the kernel reaches only {:.1f} % of its roof", *in.roofline->percent_of_roof);
  } else if (const auto sm = ncu_percent(in, &SpeedOfLight::sm_percent)) {
    reason += fmt::format(", and its SM throughput is only {:.1f} % of its peak (ncu's speed of light)", *sm);
  }
  const std::string& l = in.occupancy_limiter;
  std::string next = l == "registers" || l == "vgpr" || l == "sgpr"
                         ? "use fewer registers per thread (launch bounds, smaller tiles, fewer live values)"
                     : l == "shared_memory" || l == "lds" ? fmt::format("use less {} per {}", w.shared, w.one_block)
                                                          : fmt::format("use larger {}", w.block);
  if (in.library) {  // its registers and tiles are not the user's to change
    next = fmt::format("a {} kernel: its registers and tiles are the library's choice; ask it for another algorithm or "
                       "precision, give it larger problems per call, or fuse the work around it",
                       in.library->library);
  }
  return fired(rule, reason, next, (0.5 + 0.3 * (1 - *in.occupancy / kLowOccupancy)) * (in.roofline ? 1.0 : 0.8));
}

Verdict latency(const BottleneckInputs& in, const Words&) {
  const char* rule = "memory_latency_bound";
  if (!in.roofline || !in.roofline->position) return not_fired(rule, no_position(in));
  const auto& r = *in.roofline;
  if (*r.position != "memory_bound" || *r.percent_of_roof >= kNearRoofPercent) {
    return not_fired(rule, fmt::format("{} at {:.1f} % of its roof", *r.position, *r.percent_of_roof));
  }
  return fired(rule,
               fmt::format("memory-bound at only {:.1f} % of the DRAM roof: waiting on memory, not moving it",
                           *r.percent_of_roof),
               "keep more loads in flight: more independent loads per thread, vector loads, prefetching, more occupancy",
               0.5 + 0.3 * (1 - *r.percent_of_roof / kNearRoofPercent));
}

Verdict divergence(const BottleneckInputs& in, const Words& w) {
  const char* rule = "divergence_bound";
  if (!in.branch_efficiency) {
    return not_fired(rule, in.top_stall.empty() ? "branch efficiency unknown (needs the --deep pass)"
                                                : "branch efficiency unknown: no branch target counted");
  }
  if (*in.branch_efficiency >= kLowBranchEfficiency) {
    return not_fired(rule, fmt::format("branch efficiency {:.0f} %", 100 * *in.branch_efficiency));
  }
  return fired(rule, fmt::format("branch efficiency {:.0f} % (< {:.0f} %)", 100 * *in.branch_efficiency, 100 * kLowBranchEfficiency),
               fmt::format("make the threads of a {} take the same branches: sort or partition the data, hoist conditions",
                           w.warp),
               0.5 + 0.4 * (1 - *in.branch_efficiency / kLowBranchEfficiency));
}

// What usually shortens the wait of a common stall reason (analysis/stalls.cpp maps each vendor's).
std::string stall_remedy(const std::string& reason, const Words& w) {
  if (reason == "memory_dependency") return "keep more loads in flight: more independent loads per thread, vector loads, prefetching";
  if (reason == "lds_dependency") return fmt::format("fewer {} round trips and bank conflicts: pad or swizzle its layout", w.shared);
  if (reason == "barrier") return "balance the work between barriers, or have fewer of them";
  if (reason == "memory_fence") return "fewer memory fences";
  if (reason == "fixed_latency") return "more independent instructions between dependent ones: unroll, interleave";
  if (reason == "pipe_busy") return fmt::format("the pipe it uses is full: less arithmetic, or move it to {} or lower precision", w.matrix);
  if (reason == "memory_throttle") return "fewer, wider memory instructions (vector loads), less traffic";
  if (reason == "branch") return "fewer branches: predicate short ones, hoist conditions";
  if (reason == "instruction_fetch") return "smaller code: less unrolling or fewer variants in one kernel";
  if (reason == "matrix") return fmt::format("keep {} fed: deeper pipelining of their operands", w.matrix);
  if (reason == "not_selected" || reason == "selected") {
    return "another was ready to issue: instruction issue limits it, so fewer instructions per result (vector loads, less "
           "index arithmetic)";
  }
  return "see analysis.json:stalls for the vendor's own reasons";
}

double gpu_busy_fraction(const trace::Trace& trace) {
  // Per file (one run or process): the union of GPU work over the span from its first start to its
  // last end.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> by_source(trace.sources.size());
  for (const auto& d : trace.dispatches) by_source[static_cast<size_t>(d.source)].emplace_back(d.start_ns, d.end_ns);
  for (const auto& c : trace.memory_copies) by_source[static_cast<size_t>(c.source)].emplace_back(c.start_ns, c.end_ns);
  double busy = 0, span = 0;
  for (auto& intervals : by_source) {
    if (intervals.empty()) continue;
    std::sort(intervals.begin(), intervals.end());
    int64_t covered_to = intervals.front().first, last_end = intervals.front().first;
    for (const auto& [start, end] : intervals) {
      if (end > covered_to) {
        busy += static_cast<double>(end - std::max(start, covered_to));
        covered_to = end;
      }
      last_end = std::max(last_end, end);
    }
    span += static_cast<double>(last_end - intervals.front().first);
  }
  return span > 0 ? busy / span : 1.0;
}

}  // namespace

BottleneckInputs bottleneck_inputs(const trace::Trace& trace, const ProfileSummary& summary, const RooflineResult* roofline,
                                   const DagResult* dag, const StallAnalysis* stalls) {
  BottleneckInputs in;
  if (!summary.kernel) return in;
  const auto& k = *summary.kernel;
  in.kernel = k.name;
  if (summary.gpu) {
    in.vendor = summary.gpu->vendor;
    in.compute_units = summary.gpu->compute_units;
  }
  in.time_ms = k.total_ms;
  in.mean_dispatch_us = k.dispatches > 0 ? 1000.0 * k.total_ms / static_cast<double>(k.dispatches) : 0;
  // Launches laid end to end leave no gaps to measure: how busy the GPU was is not known then.
  const bool gaps_measured =
      std::none_of(trace.sources.begin(), trace.sources.end(), [](const trace::Source& s) { return s.laid_end_to_end; });
  if (!trace.dispatches.empty() && gaps_measured) in.gpu_busy_fraction = gpu_busy_fraction(trace);
  double workgroups = 1;
  for (int i = 0; i < 3; ++i) {
    if (k.block[i] > 0) workgroups *= static_cast<double>((k.grid[i] + k.block[i] - 1) / k.block[i]);
  }
  in.grid_workgroups = workgroups;
  if (summary.occupancy) {
    in.occupancy = summary.occupancy->theoretical;
    in.occupancy_limiter = summary.occupancy->limiter;
  }
  if (roofline) {
    for (const auto& r : roofline->kernels) {
      if (r.name != k.name || r.measured_dispatches == 0) continue;
      in.roofline = r;
      in.speed_of_light = r.speed_of_light;
      const auto& achieved = r.achieved_bytes_per_s[static_cast<size_t>(hal::MemoryLevel::dram)];
      const auto& peak = roofline->ceilings.bytes_per_s[static_cast<size_t>(hal::MemoryLevel::dram)];
      if (achieved && peak) in.dram_percent_of_peak = 100 * *achieved / *peak;
    }
  } else {
    in.speed_of_light = kernel_speed_of_light(trace, k.name);
  }
  in.library = library_kernel(k.name);
  if (stalls) {
    in.branch_efficiency = stalls->branch_efficiency;
    for (const auto& [reason, share] : stalls->stalls) {  // the first of equals, by name
      if (share > in.top_stall_share) {
        in.top_stall = reason;
        in.top_stall_share = share;
      }
    }
  }
  if (dag) {
    for (const auto& d : dag->kernels) {
      if (!d.is_copy && d.name == k.name) in.critical_path_score = d.critical_path_score;
    }
  }
  return in;
}

Bottleneck classify_bottleneck(const BottleneckInputs& in) {
  static const std::vector<Rule> rules = {launch_overhead, small_grid, bandwidth, compute, occupancy, latency, divergence};
  const Words w = words(in.vendor);
  Bottleneck b;
  b.kernel = in.kernel;
  b.inputs = in;
  std::optional<Verdict> chosen;
  std::vector<Verdict> others;
  for (const auto& rule : rules) {
    Verdict v = rule(in, w);
    b.rules.push_back(v.outcome);
    if (!v.outcome.fired) continue;
    if (!chosen) {
      chosen = v;
    } else {
      others.push_back(v);
    }
  }
  if (chosen) {
    b.bottleneck = chosen->outcome.rule;
    b.confidence = chosen->confidence;
    b.reasons.push_back(chosen->outcome.reason);
    b.next_steps.push_back(chosen->outcome.next_step);
    for (const auto& v : others) {
      b.reasons.push_back(v.outcome.reason);
      b.next_steps.push_back(v.outcome.next_step);
    }
  } else {
    // ncu's speed of light, like a roofline, says the kernel is far from every peak.
    const bool counted = in.roofline || in.speed_of_light;
    b.bottleneck = "mixed";
    b.confidence = counted ? 0.4 : 0.2;
    b.reasons.push_back(counted ? "no single limit stands out: not near a roof, occupancy and grid are adequate"
                                : "no counter data: profile with --roofline to place the kernel on the roofline");
    if (!in.top_stall.empty()) {
      b.next_steps.push_back(fmt::format("its {}s wait most on {} ({:.0f} % of stalled time): {}", w.warp, in.top_stall,
                                         100 * in.top_stall_share, stall_remedy(in.top_stall, w)));
    } else {
      b.next_steps.push_back(counted ? "look at its stalls (--deep) to see what its warps wait for" : "rerun with --roofline");
    }
  }
  // Whatever limits it, an FP32 GEMM on CUDA cores gains most from tensor cores (on an H100 TF32's
  // dense peak is 7.4x FP32's, reference/cuda.md 4.3): that comes first.
  if (in.library && in.library->fp32_gemm_simt) {
    b.reasons.push_back(fmt::format("its name says an FP32 GEMM of {} on CUDA cores (ffma, simt): no tensor cores", in.library->library));
    b.next_steps.insert(b.next_steps.begin(),
                        "let it use tensor cores: TF32 or BF16 inputs (PyTorch: torch.set_float32_matmul_precision('high'), or "
                        "autocast to bfloat16)");
  }
  if (in.critical_path_score && *in.critical_path_score < kMinorPathShare) {
    b.reasons.push_back(fmt::format("it holds only {:.1f} % of the critical path: making it faster gains little end to end",
                                    100 * *in.critical_path_score));
  }
  b.confidence = std::round(b.confidence * 100) / 100;
  return b;
}

}  // namespace rpl::analysis
