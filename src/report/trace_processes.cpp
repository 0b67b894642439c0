#include "trace_processes.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rpl::report {

TraceProcesses number_processes(const trace::Trace& trace, bool with_calls) {
  TraceProcesses p;
  // Numbered first in the order seen, then again in key order once all are known.
  auto process_of = [&](int32_t source, const std::string& guid) {
    return p.numbers.try_emplace({source, guid}, static_cast<uint32_t>(p.numbers.size())).first->second;
  };
  p.dispatch.reserve(trace.dispatches.size());
  for (const auto& d : trace.dispatches) {
    p.dispatch.push_back(process_of(d.source, d.agent >= 0 ? trace.agents[static_cast<size_t>(d.agent)].guid : std::string()));
  }
  for (const auto& c : trace.memory_copies) p.copy.push_back(process_of(c.source, c.guid));
  if (with_calls) {
    for (const auto& c : trace.host_calls) p.call.push_back(process_of(c.source, c.guid));
  }
  // Ranks first, by rank; then the rest by (source, GUID), the map's own order.
  auto rank_of = [&](int32_t source) { return trace.sources.at(static_cast<size_t>(source)).rank; };
  std::vector<std::pair<std::pair<int32_t, std::string>, uint32_t*>> order;
  for (auto& [key, number] : p.numbers) order.emplace_back(key, &number);
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    const auto ra = rank_of(a.first.first), rb = rank_of(b.first.first);
    return ra.has_value() != rb.has_value() ? ra.has_value() : ra.has_value() && *ra < *rb;
  });
  std::vector<uint32_t> renumber(p.numbers.size());
  p.rank_label.reserve(order.size());
  uint32_t next = 0;
  for (auto& [key, number] : order) {
    renumber[*number] = next;
    *number = next++;
    const auto& source = trace.sources.at(static_cast<size_t>(key.first));
    const bool other_host = std::any_of(trace.sources.begin(), trace.sources.end(),
                                        [&](const auto& s) { return s.rank && !s.host.empty() && s.host != source.host; });
    p.rank_label.push_back(!source.rank              ? std::string()
                           : other_host && !source.host.empty() ? fmt::format("rank {} on {}", *source.rank, source.host)
                                                                : fmt::format("rank {}", *source.rank));
  }
  for (auto* list : {&p.dispatch, &p.copy, &p.call}) {
    for (auto& n : *list) n = renumber[n];
  }
  return p;
}

}  // namespace rpl::report
