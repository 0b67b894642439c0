#pragma once
// Nsight Compute's own "speed of light" of a kernel: how close its busiest SM unit, its busiest
// memory unit and its DRAM came to their peaks, in percent. ncu measures these per launch
// (its GPU Speed Of Light section, or the raw metrics below); where a trace has them, they judge a
// kernel that the roofline cannot place (no FLOPs or bytes counted).
#include <map>
#include <optional>
#include <string>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

inline constexpr const char* kSmThroughputMetric = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kMemoryThroughputMetric = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kDramThroughputMetric = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";

struct SpeedOfLight {
  std::optional<double> sm_percent;      // the busiest of the SM's pipelines, issue and memory units
  std::optional<double> memory_percent;  // the busiest of L1, L2 and DRAM
  std::optional<double> dram_percent;
  size_t measured_dispatches = 0;
};

/// Each kernel's (by name) percentages, each a mean over its dispatches weighted by their
/// durations, in one pass over the counters; a kernel none of whose dispatches has any of the
/// three is left out.
std::map<std::string, SpeedOfLight> speed_of_light_by_kernel(const trace::Trace& trace);

/// One kernel's, as above; nothing where no dispatch of it has any of the three.
std::optional<SpeedOfLight> kernel_speed_of_light(const trace::Trace& trace, const std::string& kernel);

}  // namespace rpl::analysis
