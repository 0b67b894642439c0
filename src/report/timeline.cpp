#include <rpl/report/timeline.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include <rpl/analysis/short_names.hpp>

#include "trace_processes.hpp"

namespace rpl::report {
namespace {
using Json = nlohmann::json;

struct Operation {
  int64_t start = 0, end = 0;
  uint32_t lane = 0;
  analysis::DagNode node;
  std::string_view name;
  auto key() const { return std::tie(start, end, lane, node.kind, node.index); }
};

// Idle gaps longer than this share of the whole trace, and than a millisecond, split it (a
// program's start-up, its first calls).
constexpr double kLongGap = 0.05;
constexpr double kLongGapAtLeastNs = 1e6;

// Where the GPU works: the trace split at its long idle gaps, the part with the most busy time;
// its span and busy fraction, and the whole trace's. Operations sorted by start.
Json working_window(const std::vector<Operation>& ops, int64_t origin) {
  if (ops.empty()) return nullptr;
  struct Part {
    int64_t start, end, busy;
  };
  std::vector<Part> parts;
  int64_t covered_to = ops.front().start, last_end = ops.front().start, first = ops.front().start;
  for (const auto& op : ops) last_end = std::max(last_end, op.end);
  const double long_gap = std::max(kLongGapAtLeastNs, kLongGap * static_cast<double>(last_end - first));
  int64_t whole_busy = 0;
  for (const auto& op : ops) {
    if (parts.empty() || static_cast<double>(op.start - covered_to) > long_gap) parts.push_back({op.start, op.start, 0});
    if (op.end > covered_to) {
      const int64_t added = op.end - std::max(op.start, covered_to);
      parts.back().busy += added;
      whole_busy += added;
      covered_to = op.end;
    }
    parts.back().end = std::max(parts.back().end, op.end);
  }
  const auto& w = *std::max_element(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.busy < b.busy; });
  const auto fraction = [](int64_t busy, int64_t span) { return span > 0 ? static_cast<double>(busy) / static_cast<double>(span) : 1.0; };
  return {{"start_ns", w.start - origin}, {"end_ns", w.end - origin}, {"busy_fraction", fraction(w.busy, w.end - w.start)},
          {"whole_busy_fraction", fraction(whole_busy, last_end - first)}, {"trace_end_ns", last_end - origin}};
}

}  // namespace

Json timeline_json(const trace::Trace& trace, const analysis::DagResult& dag, size_t max_operations) {
  const auto processes = number_processes(trace, false);
  // Lanes by (process, stream): numbered once all are known, so their order is the keys'.
  std::map<std::pair<uint32_t, int64_t>, uint32_t> lanes;
  for (size_t i = 0; i < trace.dispatches.size(); ++i) lanes.emplace(std::pair{processes.dispatch[i], trace.dispatches[i].stream_id}, 0);
  for (size_t i = 0; i < trace.memory_copies.size(); ++i) {
    lanes.emplace(std::pair{processes.copy[i], trace.memory_copies[i].stream_id}, 0);
  }
  Json labels = Json::array();
  for (auto& [key, number] : lanes) {
    number = static_cast<uint32_t>(labels.size());
    const std::string& rank = processes.rank_label.at(key.first);
    labels.push_back(!rank.empty()                  ? fmt::format("{} stream {}", rank, key.second)
                     : processes.numbers.size() > 1 ? fmt::format("process {} stream {}", key.first + 1, key.second)
                                                    : fmt::format("stream {}", key.second));
  }

  static const std::string kCopy = "copy", kUnknown = "?";
  std::vector<Operation> ops;
  ops.reserve(trace.dispatches.size() + trace.memory_copies.size());
  for (size_t i = 0; i < trace.dispatches.size(); ++i) {
    const auto& d = trace.dispatches[i];
    ops.push_back({d.start_ns, std::max(d.start_ns, d.end_ns), lanes.at({processes.dispatch[i], d.stream_id}),
                   {analysis::DagNode::Kind::dispatch, static_cast<uint32_t>(i)},
                   d.symbol >= 0 ? trace.symbols[static_cast<size_t>(d.symbol)].name() : kUnknown});
  }
  for (size_t i = 0; i < trace.memory_copies.size(); ++i) {
    const auto& c = trace.memory_copies[i];
    ops.push_back({c.start_ns, std::max(c.start_ns, c.end_ns), lanes.at({processes.copy[i], c.stream_id}),
                   {analysis::DagNode::Kind::copy, static_cast<uint32_t>(i)}, c.name.empty() ? kCopy : c.name});
  }
  std::sort(ops.begin(), ops.end(), [](const Operation& a, const Operation& b) { return a.key() < b.key(); });
  const size_t shown = std::min(ops.size(), max_operations);
  const int64_t origin = ops.empty() ? 0 : ops.front().start;

  // Each shown operation's place in the columns, to find the critical path's steps among them.
  std::vector<int64_t> dispatch_at(trace.dispatches.size(), -1), copy_at(trace.memory_copies.size(), -1);
  std::map<std::string_view, size_t> name_numbers;
  Json names = Json::array(), lane = Json::array(), kind = Json::array(), name = Json::array(), start = Json::array(),
       duration = Json::array();
  for (size_t k = 0; k < shown; ++k) {
    const auto& op = ops[k];
    const bool is_copy = op.node.kind == analysis::DagNode::Kind::copy;
    (is_copy ? copy_at : dispatch_at)[op.node.index] = static_cast<int64_t>(k);
    auto [it, added] = name_numbers.try_emplace(op.name, name_numbers.size());
    if (added) names.push_back(std::string(op.name));
    lane.push_back(op.lane);
    kind.push_back(is_copy ? 1 : 0);
    name.push_back(it->second);
    start.push_back(op.start - origin);
    duration.push_back(op.end - op.start);
  }
  // The bars' labels: short names, unique among the timeline's; hovering gives the full one.
  const auto short_of = analysis::unique_short_names(names.get<std::vector<std::string>>());
  Json short_names = Json::array();
  for (const auto& n : names) short_names.push_back(short_of.at(n.get<std::string>()));
  Json critical = Json::array();
  for (const auto& step : dag.path) {
    int64_t at = -1;
    if (step.node.kind == analysis::DagNode::Kind::dispatch) at = dispatch_at[step.node.index];
    if (step.node.kind == analysis::DagNode::Kind::copy) at = copy_at[step.node.index];
    if (at >= 0) critical.push_back(at);  // host synchronizations are no bars; unshown steps are left out
  }
  return {{"operations", ops.size()}, {"shown", shown}, {"origin_ns", origin}, {"critical_path_ns", dag.critical_path_ns},
          {"lanes", std::move(labels)}, {"names", std::move(names)}, {"short_names", std::move(short_names)}, {"lane", std::move(lane)}, {"kind", std::move(kind)},
          {"name", std::move(name)}, {"start_ns", std::move(start)}, {"duration_ns", std::move(duration)},
          {"critical", std::move(critical)}, {"window", working_window(ops, origin)}};
}

}  // namespace rpl::report
