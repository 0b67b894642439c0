#pragma once
// What limits the dominant kernel: deterministic rules over its roofline, occupancy, grid, launch
// pattern and place on the critical path, giving one label, a confidence, the reasons that fired
// (with their numbers) and a next step for each. Rules and thresholds: README "Bottleneck rules".
#include <optional>
#include <string>
#include <vector>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/library_kernels.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/analysis/roofline.hpp>
#include <rpl/analysis/speed_of_light.hpp>
#include <rpl/analysis/stalls.hpp>
#include <rpl/analysis/tool_findings.hpp>

namespace rpl::analysis {

/// The facts the rules read; each may be unknown (the rules that need it then do not fire).
struct BottleneckInputs {
  std::string kernel;
  std::string vendor;                        // "AMD", "NVIDIA": for the words of the next steps
  double time_ms = 0;                        // all of its dispatches
  double mean_dispatch_us = 0;
  std::optional<double> gpu_busy_fraction;   // GPU busy time over the span of the trace's work
  std::optional<double> grid_workgroups;     // workgroups (blocks) per dispatch
  std::optional<int> compute_units;
  std::optional<double> occupancy;           // theoretical, 0..1
  std::string occupancy_limiter;
  std::optional<KernelRoofline> roofline;    // measured by a counter pass
  std::optional<double> dram_percent_of_peak;         // from the DRAM bytes counted and the peak
  std::optional<SpeedOfLight> speed_of_light;         // ncu's own percentages of peak
  std::optional<double> critical_path_score;
  std::optional<double> branch_efficiency;   // 0..1, from the stall pass where one ran
  std::string top_stall;                     // the common stall reason with the most stalled time, where one ran
  double top_stall_share = 0;                // its share of stalled time
  std::optional<LibraryKernel> library;      // where a vendor library ships the kernel (by its name)
};

struct RuleOutcome {
  std::string rule;
  bool fired = false;
  std::string reason;      // the numbers that made it fire, or why it did not
  std::string next_step;   // when it fired
};

struct Bottleneck {
  std::string kernel;
  std::string bottleneck;  // compute_bound, memory_bandwidth_bound, memory_latency_bound, occupancy_limited,
                           // launch_overhead_bound, latency_bound_small_grid, divergence_bound, mixed
  double confidence = 0;
  std::vector<std::string> reasons;     // of every rule that fired, the chosen one first
  std::vector<std::string> next_steps;
  std::vector<RuleOutcome> rules;       // every rule, fired or not, in priority order
  BottleneckInputs inputs;
  std::optional<StallAnalysis> stalls;  // where the stall pass ran
  std::vector<KernelFinding> tool_findings;  // what the tool that wrote the trace concluded (ncu's rules)
};

/// The facts about the summary's kernel; roofline, dag and stalls may be absent.
BottleneckInputs bottleneck_inputs(const trace::Trace& trace, const ProfileSummary& summary,
                                   const RooflineResult* roofline, const DagResult* dag,
                                   const StallAnalysis* stalls = nullptr);

Bottleneck classify_bottleneck(const BottleneckInputs& inputs);

}  // namespace rpl::analysis
