#include <rpl/report/perfetto_export.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trace_processes.hpp"

namespace rpl::report {
namespace {

// JSON string literal, quotes included; bytes that are not UTF-8 become U+FFFD rather than failing.
std::string quoted(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Trace-event timestamps are microseconds; nanoseconds since the trace's first operation keep
// full precision as "us.nnn".
void append_us(std::string& out, int64_t ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
}

// A track: a GPU stream, or a host thread (its calls). Streams come first in each process.
struct Lane {
  uint32_t process = 0;
  bool host = false;
  int64_t id = 0;  // the stream id, or the thread id
  bool operator<(const Lane& o) const { return std::tie(process, host, id) < std::tie(o.process, o.host, o.id); }
};

// Stream tracks take thread ids above any Linux thread id (at most 2^22), so they never meet a
// host thread's own.
constexpr uint32_t kStreamTidBase = 1u << 30;

class Exporter {
 public:
  Exporter(const trace::Trace& trace, const analysis::DagResult& dag, std::ostream& out)
      : trace_(trace), dag_(dag), out_(out) {}

  PerfettoExportCounts run() {
    collect();
    buffer_ = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"rocm-perf\",\"time_origin_ns\":" +
              std::to_string(origin_) + ",\"sources\":[";
    for (size_t i = 0; i < trace_.sources.size(); ++i) buffer_.append(i ? "," : "").append(quoted(trace_.sources[i].path));
    buffer_ += "]},\"traceEvents\":[";
    write_metadata();
    write_slices();
    write_flows();
    write_counters();
    buffer_ += "\n]}\n";
    flush(true);
    return counts_;
  }

 private:
  // Processes and lanes, numbered in a fixed order: processes by rank, then (file, GUID); lanes by
  // stream id.
  void collect() {
    auto numbered = number_processes(trace_, true);
    processes_ = std::move(numbered.numbers);
    dispatch_pid_ = std::move(numbered.dispatch);
    copy_pid_ = std::move(numbered.copy);
    call_pid_ = std::move(numbered.call);
    rank_labels_ = std::move(numbered.rank_label);
    std::map<Lane, uint32_t> lanes;
    origin_ = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < trace_.dispatches.size(); ++i) {
      lanes.emplace(Lane{dispatch_pid_[i], false, trace_.dispatches[i].stream_id}, 0);
      origin_ = std::min(origin_, trace_.dispatches[i].start_ns);
    }
    for (size_t i = 0; i < trace_.memory_copies.size(); ++i) {
      lanes.emplace(Lane{copy_pid_[i], false, trace_.memory_copies[i].stream_id}, 0);
      origin_ = std::min(origin_, trace_.memory_copies[i].start_ns);
    }
    for (size_t i = 0; i < trace_.host_calls.size(); ++i) {
      lanes.emplace(Lane{call_pid_[i], true, trace_.host_calls[i].tid}, 0);
      origin_ = std::min(origin_, trace_.host_calls[i].start_ns);
    }
    if (origin_ == std::numeric_limits<int64_t>::max()) origin_ = 0;
    uint32_t streams = 0, last_process = UINT32_MAX;
    for (auto& [lane, tid] : lanes) {
      if (lane.process != last_process) streams = 0;
      last_process = lane.process;
      tid = lane.host ? static_cast<uint32_t>(lane.id) : kStreamTidBase + ++streams;
    }
    lanes_ = std::move(lanes);
    counts_.processes = processes_.size();
    counts_.tracks = lanes_.size();
    symbol_names_.reserve(trace_.symbols.size());
    for (const auto& s : trace_.symbols) symbol_names_.push_back(quoted(s.name()));
  }

  uint32_t tid_of(uint32_t pid, int64_t stream) const { return lanes_.at(Lane{pid, false, stream}); }

  void write_metadata() {
    for (const auto& [key, pid] : processes_) {
      const auto& [source, guid] = key;
      const std::string& path = trace_.sources.at(static_cast<size_t>(source)).path;
      const std::string& rank = rank_labels_.at(pid);
      const std::string name = (rank.empty() ? "" : rank + ": ") + (guid.empty() ? path : fmt::format("{} (process {})", path, guid));
      event(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":{}}}}})", pid + 1, quoted(name)));
      event(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})", pid + 1, pid));
    }
    uint32_t order = 0;
    for (const auto& [lane, tid] : lanes_) {
      event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{} {}"}}}})", lane.process + 1, tid,
                        lane.host ? "thread" : "stream", lane.id));
      event(fmt::format(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                        lane.process + 1, tid, ++order));
    }
  }

  void slice_start(uint32_t pid, uint32_t tid, int64_t start, int64_t end) {
    separator();
    fmt::format_to(std::back_inserter(buffer_), R"({{"ph":"X","pid":{},"tid":{},"ts":)", pid + 1, tid);
    append_us(buffer_, start - origin_);
    buffer_ += ",\"dur\":";
    append_us(buffer_, std::max<int64_t>(0, end - start));
    ++counts_.slices;
  }

  void write_slices() {
    for (size_t i = 0; i < trace_.dispatches.size(); ++i) {
      const auto& d = trace_.dispatches[i];
      const auto& g = trace_.geometry(d);
      slice_start(dispatch_pid_[i], tid_of(dispatch_pid_[i], d.stream_id), d.start_ns, d.end_ns);
      fmt::format_to(std::back_inserter(buffer_),
                     R"(,"cat":"kernel","name":{},"args":{{"dispatch":{},"grid":[{},{},{}],"workgroup":[{},{},{}],"lds_bytes":{},"scratch_bytes":{}}}}})",
                     d.symbol >= 0 ? symbol_names_[static_cast<size_t>(d.symbol)] : std::string("\"?\""), d.id,
                     g.grid[0], g.grid[1], g.grid[2], g.workgroup[0], g.workgroup[1], g.workgroup[2], g.group_segment_size,
                     g.private_segment_size);
      flush(false);
    }
    for (size_t i = 0; i < trace_.memory_copies.size(); ++i) {
      const auto& c = trace_.memory_copies[i];
      slice_start(copy_pid_[i], tid_of(copy_pid_[i], c.stream_id), c.start_ns, c.end_ns);
      fmt::format_to(std::back_inserter(buffer_), R"(,"cat":"copy","name":{},"args":{{"copy":{},"bytes":{}}}}})",
                     quoted(c.name.empty() ? std::string("copy") : c.name), c.id, c.size);
      flush(false);
    }
    std::vector<std::string> call_names;
    for (const auto& n : trace_.host_call_names) call_names.push_back(quoted(n));
    for (size_t i = 0; i < trace_.host_calls.size(); ++i) {
      const auto& c = trace_.host_calls[i];
      slice_start(call_pid_[i], lanes_.at(Lane{call_pid_[i], true, c.tid}), c.start_ns, c.end_ns);
      fmt::format_to(std::back_inserter(buffer_), R"(,"cat":"api","name":{}}})", call_names[c.name]);
      flush(false);
    }
  }

  // Where a node's slice is: its process, lane, start and end.
  struct Place {
    uint32_t pid = 0, tid = 0;
    int64_t start = 0, end = 0;
  };
  std::optional<Place> place(const analysis::DagNode& n) const {
    if (n.kind == analysis::DagNode::Kind::dispatch) {
      const auto& d = trace_.dispatches[n.index];
      return Place{dispatch_pid_[n.index], tid_of(dispatch_pid_[n.index], d.stream_id), d.start_ns, d.end_ns};
    }
    if (n.kind == analysis::DagNode::Kind::copy) {
      const auto& c = trace_.memory_copies[n.index];
      return Place{copy_pid_[n.index], tid_of(copy_pid_[n.index], c.stream_id), c.start_ns, std::max(c.start_ns, c.end_ns)};
    }
    return std::nullopt;  // a host synchronization: no slice to bind to
  }

  // A flow starts inside its source slice (1 ns before the end) and ends at its target's start,
  // bound to the enclosing slice ("bp":"e"), so each arrow joins the two operations it orders.
  void write_flows() {
    uint64_t id = 0;
    for (const auto& e : dag_.cross_edges) {
      const auto from = place(e.from), to = place(e.to);
      if (!from || !to) continue;
      const char* kind = analysis::kEdgeKindNames[static_cast<size_t>(e.kind)];
      ++id;
      separator();
      fmt::format_to(std::back_inserter(buffer_), R"({{"ph":"s","cat":"dependency","name":"{}","id":{},"pid":{},"tid":{},"ts":)",
                     kind, id, from->pid + 1, from->tid);
      append_us(buffer_, std::max(from->start, from->end - 1) - origin_);
      buffer_ += '}';
      separator();
      fmt::format_to(std::back_inserter(buffer_),
                     R"({{"ph":"f","bp":"e","cat":"dependency","name":"{}","id":{},"pid":{},"tid":{},"ts":)", kind, id,
                     to->pid + 1, to->tid);
      append_us(buffer_, to->start - origin_);
      buffer_ += '}';
      ++counts_.flows;
      flush(false);
    }
  }

  // Each counter a track per process: the dispatch's value from its start, back to 0 at its end.
  void write_counters() {
    std::vector<std::string> names;
    for (const auto& n : trace_.counter_names) names.push_back(quoted(n));
    for (const auto& v : trace_.counter_values) {
      if (!std::isfinite(v.value)) continue;  // JSON has no NaN or infinity
      const auto& d = trace_.dispatches[v.dispatch];
      const uint32_t pid = dispatch_pid_[v.dispatch] + 1;
      for (const auto& [ts, value] : {std::pair{d.start_ns, v.value}, std::pair{d.end_ns, 0.0}}) {
        separator();
        fmt::format_to(std::back_inserter(buffer_), R"({{"ph":"C","pid":{},"name":{},"ts":)", pid, names[v.counter]);
        append_us(buffer_, ts - origin_);
        fmt::format_to(std::back_inserter(buffer_), R"(,"args":{{"value":{}}}}})", value);
        ++counts_.counter_events;
      }
      flush(false);
    }
  }

  void event(const std::string& text) {
    separator();
    buffer_ += text;
  }
  void separator() {
    buffer_ += first_ ? "\n" : ",\n";
    first_ = false;
  }
  void flush(bool all) {
    if (all || buffer_.size() > (1u << 20)) {
      out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
      buffer_.clear();
    }
  }

  const trace::Trace& trace_;
  const analysis::DagResult& dag_;
  std::ostream& out_;
  std::map<std::pair<int32_t, std::string>, uint32_t> processes_;
  std::map<Lane, uint32_t> lanes_;
  std::vector<uint32_t> dispatch_pid_, copy_pid_, call_pid_;
  std::vector<std::string> rank_labels_;  // by process number; "" where it has no rank
  std::vector<std::string> symbol_names_;
  int64_t origin_ = 0;
  std::string buffer_;
  bool first_ = true;
  PerfettoExportCounts counts_;
};

}  // namespace

PerfettoExportCounts write_perfetto_trace(const trace::Trace& trace, const analysis::DagResult& dag, std::ostream& out) {
  return Exporter(trace, dag, out).run();
}

}  // namespace rpl::report
