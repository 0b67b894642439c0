#include <rpl/analysis/speed_of_light.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace rpl::analysis {

std::optional<SpeedOfLight> kernel_speed_of_light(const trace::Trace& trace, const std::string& kernel) {
  constexpr std::array<const char*, 3> names = {kSmThroughputMetric, kMemoryThroughputMetric, kDramThroughputMetric};
  std::array<std::optional<uint32_t>, 3> ids;
  for (uint32_t c = 0; c < trace.counter_names.size(); ++c) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (trace.counter_names[c] == names[i]) ids[i] = c;
    }
  }
  if (std::none_of(ids.begin(), ids.end(), [](const auto& id) { return id.has_value(); })) return std::nullopt;
  std::vector<bool> ours(trace.symbols.size());
  for (size_t s = 0; s < trace.symbols.size(); ++s) ours[s] = trace.symbols[s].name() == kernel;

  // Counter values are grouped by dispatch, in the order of the dispatches.
  std::array<double, 3> weighted{}, weight{};
  SpeedOfLight sol;
  size_t v = 0;
  for (uint32_t d = 0; d < trace.dispatches.size(); ++d) {
    const auto& dispatch = trace.dispatches[d];
    const double w = static_cast<double>(std::max<int64_t>(dispatch.duration_ns(), 1));
    bool measured = false;
    for (; v < trace.counter_values.size() && trace.counter_values[v].dispatch == d; ++v) {
      if (dispatch.symbol < 0 || !ours[static_cast<size_t>(dispatch.symbol)]) continue;
      for (size_t i = 0; i < names.size(); ++i) {
        if (ids[i] != trace.counter_values[v].counter) continue;
        weighted[i] += w * trace.counter_values[v].value;
        weight[i] += w;
        measured = true;
      }
    }
    sol.measured_dispatches += measured ? 1 : 0;
  }
  if (sol.measured_dispatches == 0) return std::nullopt;
  std::array<std::optional<double>*, 3> out = {&sol.sm_percent, &sol.memory_percent, &sol.dram_percent};
  for (size_t i = 0; i < names.size(); ++i) {
    if (weight[i] > 0) *out[i] = weighted[i] / weight[i];
  }
  return sol;
}

}  // namespace rpl::analysis
