#include "trace_event_format.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl::test {
namespace {
using nlohmann::json;

struct Slice {
  double start, end;
};

}  // namespace

std::string trace_event_errors(const std::string& json_text) {
  const auto doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) return "not JSON";
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) return "no traceEvents array";
  std::map<std::pair<int, int>, std::vector<Slice>> slices;  // (pid, tid) -> slices
  std::set<std::pair<int, int>> named_threads;
  std::set<int> named_processes;
  std::map<int64_t, std::vector<json>> flows;
  for (const auto& e : doc["traceEvents"]) {
    if (!e.contains("ph") || !e["ph"].is_string() || !e.contains("pid") || !e["pid"].is_number_integer()) {
      return "event without ph or pid: " + e.dump();
    }
    const std::string ph = e["ph"];
    const int pid = e["pid"];
    if (ph == "M") {
      if (e["name"] == "process_name") named_processes.insert(pid);
      if (e["name"] == "thread_name") named_threads.emplace(pid, e["tid"].get<int>());
      continue;
    }
    if (!e.contains("ts") || !e["ts"].is_number()) return "event without a numeric ts: " + e.dump();
    if (ph == "X") {
      if (!e.contains("dur") || !e["dur"].is_number() || e["dur"].get<double>() < 0) return "X without dur >= 0: " + e.dump();
      if (!e.contains("name") || !e["name"].is_string() || !e.contains("tid")) return "X without name or tid: " + e.dump();
      const double ts = e["ts"];
      slices[{pid, e["tid"].get<int>()}].push_back({ts, ts + e["dur"].get<double>()});
    } else if (ph == "s" || ph == "f") {
      if (!e.contains("id") || !e.contains("tid") || !e.contains("cat")) return "flow without id, tid or cat: " + e.dump();
      flows[e["id"].get<int64_t>()].push_back(e);
    } else if (ph == "C") {
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) return "counter without args: " + e.dump();
      for (const auto& [k, v] : e["args"].items()) {
        if (!v.is_number()) return "counter with a value that is not a number: " + e.dump();
      }
    } else {
      return "an event phase this export does not write: " + e.dump();
    }
  }
  for (const auto& [lane, list] : slices) {
    if (!named_processes.count(lane.first) || !named_threads.count(lane)) return "a track without its name metadata";
  }
  // Each flow: one start and one end, each inside a slice of its own track.
  for (const auto& [id, pair] : flows) {
    if (pair.size() != 2 || pair[0]["ph"] != "s" || pair[1]["ph"] != "f") return "flow " + std::to_string(id) + " is not one s then one f";
    if (pair[1].value("bp", "") != "e") return "flow end not bound to its enclosing slice";
    for (const auto& e : pair) {
      const auto& list = slices[{e["pid"].get<int>(), e["tid"].get<int>()}];
      const double ts = e["ts"];
      const bool inside = std::any_of(list.begin(), list.end(), [&](const Slice& s) { return s.start <= ts && ts <= s.end; });
      if (!inside) return "flow event outside every slice of its track: " + e.dump();
    }
  }
  return "";
}

}  // namespace rpl::test
