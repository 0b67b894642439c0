#include "trace_processes.hpp"

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
  std::vector<uint32_t> renumber(p.numbers.size());
  uint32_t next = 0;
  for (auto& [key, number] : p.numbers) {
    renumber[number] = next;
    number = next++;
  }
  for (auto* list : {&p.dispatch, &p.copy, &p.call}) {
    for (auto& n : *list) n = renumber[n];
  }
  return p;
}

}  // namespace rpl::report
