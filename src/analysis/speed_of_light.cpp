#include <rpl/analysis/speed_of_light.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace rpl::analysis {
namespace {

constexpr std::array<const char*, 3> kMetrics = {kSmThroughputMetric, kMemoryThroughputMetric, kDramThroughputMetric};

// A kernel's duration-weighted sums, before they are divided.
struct Sums {
  std::array<double, 3> weighted{}, weight{};
  size_t measured_dispatches = 0;
};

}  // namespace

std::map<std::string, SpeedOfLight> speed_of_light_by_kernel(const trace::Trace& trace) {
  std::vector<int> metric_of(trace.counter_names.size(), -1);  // by counter: its index in kMetrics
  bool any = false;
  for (size_t c = 0; c < trace.counter_names.size(); ++c) {
    for (size_t i = 0; i < kMetrics.size(); ++i) {
      if (trace.counter_names[c] == kMetrics[i]) metric_of[c] = static_cast<int>(i), any = true;
    }
  }
  std::map<std::string, SpeedOfLight> out;
  if (!any) return out;
  // One name lookup per symbol, not per dispatch.
  std::map<std::string, Sums> sums;
  std::vector<Sums*> of_symbol(trace.symbols.size());
  for (size_t s = 0; s < trace.symbols.size(); ++s) of_symbol[s] = &sums[trace.symbols[s].name()];

  // Counter values are grouped by dispatch, in the order of the dispatches.
  size_t v = 0;
  for (uint32_t d = 0; d < trace.dispatches.size(); ++d) {
    const auto& dispatch = trace.dispatches[d];
    const double w = static_cast<double>(std::max<int64_t>(dispatch.duration_ns(), 1));
    Sums* k = dispatch.symbol >= 0 ? of_symbol[static_cast<size_t>(dispatch.symbol)] : nullptr;
    bool measured = false;
    for (; v < trace.counter_values.size() && trace.counter_values[v].dispatch == d; ++v) {
      const int i = metric_of[trace.counter_values[v].counter];
      if (!k || i < 0) continue;
      k->weighted[static_cast<size_t>(i)] += w * trace.counter_values[v].value;
      k->weight[static_cast<size_t>(i)] += w;
      measured = true;
    }
    if (measured) ++k->measured_dispatches;
  }
  for (const auto& [name, s] : sums) {
    if (s.measured_dispatches == 0) continue;
    SpeedOfLight sol;
    sol.measured_dispatches = s.measured_dispatches;
    std::array<std::optional<double>*, 3> percents = {&sol.sm_percent, &sol.memory_percent, &sol.dram_percent};
    for (size_t i = 0; i < kMetrics.size(); ++i) {
      if (s.weight[i] > 0) *percents[i] = s.weighted[i] / s.weight[i];
    }
    out.emplace(name, sol);
  }
  return out;
}

std::optional<SpeedOfLight> kernel_speed_of_light(const trace::Trace& trace, const std::string& kernel) {
  auto all = speed_of_light_by_kernel(trace);
  const auto it = all.find(kernel);
  return it == all.end() ? std::nullopt : std::optional(it->second);
}

}  // namespace rpl::analysis
