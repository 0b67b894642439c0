// Builds the dependency DAG of a trace (docs/dependencies.md).
//
// A process that recorded event operations, stream kinds or graph edges orders its work by
// correlation id (the order it enqueued it; a graph launch's nodes, which share one, by start
// time); others by start time. Either order is topological: stream edges join consecutive work of
// a stream, an event edge joins the work before a record to the work after a wait that came later,
// a host synchronization sits between the work enqueued before it and after it, the legacy default
// stream between the blocking streams' work before and after it, a graph edge joins two nodes of
// one launch, and an inferred edge joins work that ended to work that started after it.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "dag_graph.hpp"

namespace rpl::analysis::detail {
namespace {

using trace::EventOperationKind;

struct Proto {
  uint32_t process;
  int64_t key;  // correlation id or start time
  uint8_t rank;  // ties: host synchronizations after the work of the same key
  DagNode node;
  uint32_t stream;  // dense (process, stream) index; kNone for host synchronizations
  int64_t start, end;
};

struct ProcessInfo {
  int32_t source = 0;
  std::string guid;
  bool has_event_operations = false;
  bool has_stream_kinds = false;
  bool has_graph_dependencies = false;
  bool all_correlated = true;
  bool by_correlation = false;
  std::vector<uint32_t> streams;  // dense stream indices
};

class Builder {
 public:
  Builder(const trace::Trace& trace, const DagOptions& options) : trace_(trace), options_(options) {}

  DagGraph build() {
    collect_processes();
    collect_nodes();
    order_nodes();
    add_stream_edges();
    add_event_edges();
    add_host_sync_edges();
    add_legacy_stream_edges();
    add_graph_edges();
    if (options_.infer_threshold_ns > 0) infer_edges();
    finish_graph();
    return std::move(g_);
  }

 private:
  uint32_t process_of(int32_t source, const std::string& guid) {
    auto [it, inserted] = process_index_.try_emplace({source, guid}, static_cast<uint32_t>(info_.size()));
    if (inserted) {
      ProcessInfo p;
      p.source = source;
      p.guid = guid;
      info_.push_back(std::move(p));
    }
    return it->second;
  }

  uint32_t stream_of(uint32_t process, int64_t stream_id) {
    auto [it, inserted] = stream_index_.try_emplace({process, stream_id}, static_cast<uint32_t>(stream_ids_.size()));
    if (inserted) {
      stream_ids_.push_back(stream_id);
      info_[process].streams.push_back(it->second);
    }
    return it->second;
  }

  void collect_processes() {
    agent_process_.resize(trace_.agents.size());
    for (size_t a = 0; a < trace_.agents.size(); ++a) {
      agent_process_[a] = process_of(trace_.agents[a].source, trace_.agents[a].guid);
    }
    for (const auto& op : trace_.event_operations) {
      auto& p = info_[process_of(op.source, op.guid)];
      p.has_event_operations = true;
      if (op.correlation_id == 0) p.all_correlated = false;
    }
    for (const auto& s : trace_.streams) {
      const uint32_t p = process_of(s.source, s.guid);
      info_[p].has_stream_kinds = true;
      stream_kinds_[{p, s.stream_id}] = &s;
    }
  }

  uint32_t process_of(const trace::Dispatch& d) {
    return d.agent >= 0 ? agent_process_[static_cast<size_t>(d.agent)] : process_of(d.source, "");
  }

  void collect_nodes() {
    const auto& ds = trace_.dispatches;
    std::vector<uint32_t> proc(ds.size());
    std::set<int32_t> graph_sources;
    for (const auto& d : trace_.graph_dependencies) graph_sources.insert(d.source);
    for (size_t i = 0; i < ds.size(); ++i) {
      proc[i] = process_of(ds[i]);
      if (ds[i].correlation_id == 0) info_[proc[i]].all_correlated = false;
      if (graph_sources.count(ds[i].source)) info_[proc[i]].has_graph_dependencies = true;
    }
    std::vector<uint32_t> copy_proc(trace_.memory_copies.size());
    for (size_t i = 0; i < trace_.memory_copies.size(); ++i) {
      const auto& c = trace_.memory_copies[i];
      copy_proc[i] = process_of(c.source, c.guid);
      if (c.correlation_id == 0) info_[copy_proc[i]].all_correlated = false;
      if (graph_sources.count(c.source)) info_[copy_proc[i]].has_graph_dependencies = true;
    }
    for (auto& p : info_) {
      const bool recorded = p.has_event_operations || p.has_stream_kinds || p.has_graph_dependencies;
      p.by_correlation = recorded && p.all_correlated;
      const auto source = static_cast<size_t>(p.source);
      if (!recorded && source < trace_.sources.size() && trace_.sources[source].trace_level == "kernels") {
        g_.warnings.push_back(fmt::format("{}: traced at level kernels, which records no event records, waits or "
                                          "synchronizations; cross-stream dependencies are inferred from timestamps "
                                          "(profile --trace-level default records them)",
                                          where(p)));
      }
      if (recorded && !p.all_correlated) {
        g_.warnings.push_back(fmt::format("{}: dependencies recorded but not every operation has a correlation id;"
                                          " cross-stream dependencies are inferred from timestamps instead",
                                          where(p)));
      }
    }
    protos_.reserve(ds.size() + trace_.memory_copies.size());
    for (size_t i = 0; i < ds.size(); ++i) {
      const auto& d = ds[i];
      const uint32_t p = proc[i];
      protos_.push_back({p, info_[p].by_correlation ? d.correlation_id : d.start_ns, 0,
                         {DagNode::Kind::dispatch, static_cast<uint32_t>(i)}, stream_of(p, d.stream_id), d.start_ns,
                         d.end_ns});
    }
    for (size_t i = 0; i < trace_.memory_copies.size(); ++i) {
      const auto& c = trace_.memory_copies[i];
      const uint32_t p = copy_proc[i];
      protos_.push_back({p, info_[p].by_correlation ? c.correlation_id : c.start_ns, 0,
                         {DagNode::Kind::copy, static_cast<uint32_t>(i)}, stream_of(p, c.stream_id), c.start_ns,
                         std::max(c.start_ns, c.end_ns)});
    }
    for (size_t i = 0; i < trace_.event_operations.size(); ++i) {
      const auto& op = trace_.event_operations[i];
      if (!is_host_wait(op.kind)) continue;
      const uint32_t p = process_of(op.source, op.guid);
      if (!info_[p].by_correlation) continue;
      protos_.push_back({p, op.correlation_id, 1, {DagNode::Kind::host_sync, static_cast<uint32_t>(i)}, kNone,
                         op.start_ns, op.start_ns});
    }
  }

  static bool is_host_wait(EventOperationKind k) {
    return k == EventOperationKind::event_synchronize || k == EventOperationKind::stream_synchronize ||
           k == EventOperationKind::device_synchronize;
  }

  std::string where(const ProcessInfo& p) const { return process_label(trace_, p.source, p.guid); }

  void order_nodes() {
    std::sort(protos_.begin(), protos_.end(), [](const Proto& a, const Proto& b) {
      if (a.process != b.process) return a.process < b.process;
      if (a.key != b.key) return a.key < b.key;
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.start != b.start) return a.start < b.start;  // the nodes of one graph launch share its correlation id
      if (a.node.kind != b.node.kind) return a.node.kind < b.node.kind;
      return a.node.index < b.node.index;
    });
    const size_t n = protos_.size();
    g_.nodes.resize(n);
    g_.process.resize(n);
    g_.start_ns.resize(n);
    g_.duration_ns.resize(n);
    host_sync_position_.assign(trace_.event_operations.size(), kNone);
    for (size_t v = 0; v < n; ++v) {
      const auto& p = protos_[v];
      g_.nodes[v] = p.node;
      g_.process[v] = p.process;
      g_.start_ns[v] = p.start;
      g_.duration_ns[v] = p.end - p.start;
      if (p.node.kind == DagNode::Kind::host_sync) host_sync_position_[p.node.index] = static_cast<uint32_t>(v);
    }
  }

  void add_edge(uint32_t from, uint32_t to, EdgeKind kind) {
    if (from == kNone || to == kNone) return;
    if (from >= to) {
      ++backward_edges_;  // cannot happen with consistent correlation ids; never allowed to form a cycle
      return;
    }
    edges_.push_back({from, to, kind});
    ++g_.edge_counts[static_cast<size_t>(kind)];
    if (kind != EdgeKind::stream) cross_.push_back({from, to, kind});
  }

  void add_stream_edges() {
    stream_nodes_.assign(stream_ids_.size(), {});
    stream_prev_.assign(protos_.size(), kNone);
    std::vector<size_t> overlaps(info_.size(), 0);
    std::vector<uint32_t> first_overlap_stream(info_.size(), kNone);
    for (uint32_t v = 0; v < protos_.size(); ++v) {
      const uint32_t s = protos_[v].stream;
      if (s == kNone) continue;
      auto& list = stream_nodes_[s];
      if (!list.empty()) {
        const uint32_t prev = list.back();
        stream_prev_[v] = prev;
        if (protos_[v].start < protos_[prev].end) {
          const uint32_t p = protos_[v].process;
          if (overlaps[p]++ == 0) first_overlap_stream[p] = s;
        }
        add_edge(prev, v, EdgeKind::stream);
      }
      list.push_back(v);
    }
    for (size_t p = 0; p < info_.size(); ++p) {
      if (overlaps[p] == 0) continue;
      g_.warnings.push_back(fmt::format("{}: {} operations start before the previous one on their stream ended (first on"
                                        " stream {}); each stream is still taken in {} order",
                                        where(info_[p]), overlaps[p], stream_ids_[first_overlap_stream[p]],
                                        info_[p].by_correlation ? "enqueue" : "start time"));
    }
  }

  // The last node of stream s enqueued before key, and the first enqueued after it.
  uint32_t last_before(uint32_t s, int64_t key) const {
    const auto& list = stream_nodes_[s];
    auto it = std::lower_bound(list.begin(), list.end(), key, [&](uint32_t v, int64_t k) { return protos_[v].key < k; });
    return it == list.begin() ? kNone : *std::prev(it);
  }
  uint32_t first_after(uint32_t s, int64_t key) const {
    const auto& list = stream_nodes_[s];
    auto it = std::upper_bound(list.begin(), list.end(), key, [&](int64_t k, uint32_t v) { return k < protos_[v].key; });
    return it == list.end() ? kNone : *it;
  }
  uint32_t known_stream(uint32_t process, int64_t stream_id) const {
    auto it = stream_index_.find({process, stream_id});
    return it == stream_index_.end() ? kNone : it->second;
  }

  // Per event recording: the work it waits for (kNone when its stream had none).
  struct Recording {
    int64_t key;
    uint32_t work;
  };

  void add_event_edges() {
    size_t unmatched = 0;
    const trace::EventOperation* first_unmatched = nullptr;
    for (const auto& op : trace_.event_operations) {
      if (op.kind != EventOperationKind::event_record) continue;
      const uint32_t p = process_of(op.source, op.guid);
      if (!info_[p].by_correlation) continue;
      const uint32_t s = known_stream(p, op.stream_id);
      recordings_[{p, op.event}] = {op.correlation_id, s == kNone ? kNone : last_before(s, op.correlation_id)};
    }
    for (const auto& op : trace_.event_operations) {
      if (op.kind != EventOperationKind::stream_wait_event && op.kind != EventOperationKind::event_synchronize) continue;
      const uint32_t p = process_of(op.source, op.guid);
      if (!info_[p].by_correlation) continue;
      auto rec = recordings_.find({p, op.event});
      if (rec == recordings_.end() || rec->second.key > op.correlation_id) {
        if (unmatched++ == 0) first_unmatched = &op;
        continue;
      }
      if (op.kind != EventOperationKind::stream_wait_event) continue;  // a host wait: add_host_sync_edges
      const uint32_t s = known_stream(p, op.stream_id);
      if (s != kNone) add_edge(rec->second.work, first_after(s, op.correlation_id), EdgeKind::event);
    }
    if (unmatched > 0) {
      g_.warnings.push_back(fmt::format("{} waits name an event recording that the trace does not hold (first: event {} on"
                                        " stream {}); they add no dependency",
                                        unmatched, first_unmatched->event, first_unmatched->stream_id));
    }
  }

  void add_host_sync_edges() {
    for (size_t i = 0; i < trace_.event_operations.size(); ++i) {
      const uint32_t h = host_sync_position_[i];
      if (h == kNone) continue;
      const auto& op = trace_.event_operations[i];
      const uint32_t p = g_.process[h];
      const int64_t key = op.correlation_id;
      if (op.kind == EventOperationKind::event_synchronize) {
        auto rec = recordings_.find({p, op.event});
        if (rec != recordings_.end() && rec->second.key < key) add_edge(rec->second.work, h, EdgeKind::host_sync);
      } else if (op.kind == EventOperationKind::stream_synchronize) {
        const uint32_t s = known_stream(p, op.stream_id);
        if (s != kNone) add_edge(last_before(s, key), h, EdgeKind::host_sync);
      } else {
        for (uint32_t s : info_[p].streams) add_edge(last_before(s, key), h, EdgeKind::host_sync);
      }
      // The host enqueued everything after the wait only once it returned.
      for (uint32_t s : info_[p].streams) add_edge(h, first_after(s, key), EdgeKind::host_sync);
    }
  }

  // CUDA's legacy default stream: an operation on it waits for all work enqueued before it on the
  // blocking streams of its context, and their work enqueued after it waits for it.
  void add_legacy_stream_edges() {
    for (uint32_t p = 0; p < info_.size(); ++p) {
      if (!info_[p].has_stream_kinds || !info_[p].by_correlation) continue;
      std::vector<std::pair<uint32_t, const trace::StreamInfo*>> legacy, blocking;
      for (uint32_t s : info_[p].streams) {
        auto it = stream_kinds_.find({p, stream_ids_[s]});
        if (it == stream_kinds_.end()) continue;
        if (it->second->sync == trace::StreamSync::legacy_default) legacy.emplace_back(s, it->second);
        if (it->second->sync == trace::StreamSync::blocking) blocking.emplace_back(s, it->second);
      }
      for (const auto& [l, legacy_info] : legacy) {
        for (const uint32_t v : stream_nodes_[l]) {
          for (const auto& [b, blocking_info] : blocking) {
            if (blocking_info->context != legacy_info->context) continue;
            add_edge(last_before(b, protos_[v].key), v, EdgeKind::legacy_stream);
            add_edge(v, first_after(b, protos_[v].key), EdgeKind::legacy_stream);
          }
        }
      }
    }
  }

  // The edges of each CUDA Graph launch: its dispatches and copies share the launch's correlation
  // id, and the graph's dependencies name their nodes.
  void add_graph_edges() {
    if (trace_.graph_dependencies.empty() || trace_.graph_nodes.empty()) return;
    std::map<std::pair<int32_t, uint32_t>, std::vector<std::pair<uint64_t, uint64_t>>> dependencies;
    for (const auto& d : trace_.graph_dependencies) dependencies[{d.source, d.graph}].emplace_back(d.from, d.to);
    for (auto& [graph, edges] : dependencies) {  // CUPTI reports some edges of an instantiated graph twice
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    }
    std::vector<uint32_t> dispatch_position(trace_.dispatches.size(), kNone);
    std::vector<uint32_t> copy_position(trace_.memory_copies.size(), kNone);
    for (uint32_t v = 0; v < g_.nodes.size(); ++v) {
      if (g_.nodes[v].kind == DagNode::Kind::dispatch) dispatch_position[g_.nodes[v].index] = v;
      if (g_.nodes[v].kind == DagNode::Kind::copy) copy_position[g_.nodes[v].index] = v;
    }
    // (process, source, correlation id, graph) -> node -> position
    std::map<std::tuple<uint32_t, int32_t, int64_t, uint32_t>, std::unordered_map<uint64_t, uint32_t>> launches;
    for (const auto& n : trace_.graph_nodes) {
      const uint32_t v = n.copy ? copy_position.at(n.index) : dispatch_position.at(n.index);
      if (v == kNone || !info_[protos_[v].process].by_correlation) continue;
      const int32_t source = n.copy ? trace_.memory_copies[n.index].source : trace_.dispatches[n.index].source;
      const int64_t correlation = n.copy ? trace_.memory_copies[n.index].correlation_id
                                         : trace_.dispatches[n.index].correlation_id;
      launches[{protos_[v].process, source, correlation, n.graph}][n.node] = v;
    }
    for (const auto& [launch, nodes] : launches) {
      auto deps = dependencies.find({std::get<1>(launch), std::get<3>(launch)});
      if (deps == dependencies.end()) continue;
      for (const auto& [from, to] : deps->second) {
        auto a = nodes.find(from), b = nodes.find(to);
        if (a != nodes.end() && b != nodes.end()) add_edge(a->second, b->second, EdgeKind::graph);
      }
    }
  }

  void infer_edges() {
    const int64_t t = options_.infer_threshold_ns;
    constexpr int kMaxLookBack = 64;  // ops ending within the threshold; bounds the cost on dense traces
    std::vector<std::vector<uint32_t>> by_end(info_.size());
    for (uint32_t v = 0; v < protos_.size(); ++v) {
      if (!info_[protos_[v].process].by_correlation) by_end[protos_[v].process].push_back(v);
    }
    for (auto& list : by_end) {
      if (list.empty()) continue;
      std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
        return protos_[a].end != protos_[b].end ? protos_[a].end < protos_[b].end : a < b;
      });
      for (uint32_t b : list) {
        const Proto& pb = protos_[b];
        const uint32_t prev = stream_prev_[b];
        if (prev != kNone && pb.start - protos_[prev].end <= t) continue;  // its own stream held it
        auto it = std::upper_bound(list.begin(), list.end(), pb.start,
                                   [&](int64_t k, uint32_t v) { return k < protos_[v].end; });
        for (int steps = 0; it != list.begin() && steps < kMaxLookBack; ++steps) {
          const uint32_t a = *--it;
          if (protos_[a].end < pb.start - t) break;
          if (protos_[a].stream != pb.stream && a < b) {
            add_edge(a, b, EdgeKind::inferred);
            break;
          }
        }
      }
    }
  }

  void finish_graph() {
    if (backward_edges_ > 0) {
      g_.warnings.push_back(fmt::format("{} dependencies point backwards in enqueue order (inconsistent correlation ids);"
                                        " they were left out",
                                        backward_edges_));
    }
    const size_t n = protos_.size();
    g_.pred_begin.assign(n + 1, 0);
    for (const auto& e : edges_) ++g_.pred_begin[e.to + 1];
    for (size_t v = 0; v < n; ++v) g_.pred_begin[v + 1] += g_.pred_begin[v];
    g_.preds.resize(edges_.size());
    g_.pred_kinds.resize(edges_.size());
    std::vector<uint32_t> fill(g_.pred_begin.begin(), g_.pred_begin.end() - 1);
    for (const auto& e : edges_) {
      const uint32_t at = fill[e.to]++;
      g_.preds[at] = e.from;
      g_.pred_kinds[at] = e.kind;
    }
    std::sort(cross_.begin(), cross_.end(), [](const Edge& a, const Edge& b) {
      return std::tie(a.to, a.from, a.kind) < std::tie(b.to, b.from, b.kind);
    });
    for (const auto& e : cross_) g_.cross_edges.push_back({g_.nodes[e.from], g_.nodes[e.to], e.kind, g_.process[e.to]});
    for (auto& p : info_) {
      DagProcess out;
      out.source = p.source;
      out.guid = p.guid;
      out.dependencies_recorded = p.by_correlation;
      out.laid_end_to_end = trace_.sources.at(static_cast<size_t>(p.source)).laid_end_to_end;
      g_.processes.push_back(std::move(out));
    }
    for (uint32_t v = 0; v < n; ++v) ++g_.processes[g_.process[v]].nodes;
  }

  struct Edge {
    uint32_t from, to;
    EdgeKind kind;
  };
  struct PairHash {
    template <typename A, typename B>
    size_t operator()(const std::pair<A, B>& p) const {
      return std::hash<A>()(p.first) * 1000003u ^ std::hash<B>()(p.second);
    }
  };

  const trace::Trace& trace_;
  const DagOptions& options_;
  DagGraph g_;
  std::vector<ProcessInfo> info_;
  std::map<std::pair<int32_t, std::string>, uint32_t> process_index_;
  std::vector<uint32_t> agent_process_;
  std::unordered_map<std::pair<uint32_t, int64_t>, uint32_t, PairHash> stream_index_;
  std::vector<int64_t> stream_ids_;
  std::vector<Proto> protos_;
  std::vector<std::vector<uint32_t>> stream_nodes_;  // positions, in order
  std::vector<uint32_t> stream_prev_;
  std::vector<uint32_t> host_sync_position_;
  std::unordered_map<std::pair<uint32_t, int64_t>, Recording, PairHash> recordings_;
  std::unordered_map<std::pair<uint32_t, int64_t>, const trace::StreamInfo*, PairHash> stream_kinds_;
  std::vector<Edge> edges_;
  std::vector<Edge> cross_;  // the edges that are not stream order
  size_t backward_edges_ = 0;
};

}  // namespace

DagGraph build_dag_graph(const trace::Trace& trace, const DagOptions& options) {
  return Builder(trace, options).build();
}

std::string process_label(const trace::Trace& trace, int32_t source, const std::string& guid) {
  const std::string& path = trace.sources.at(static_cast<size_t>(source)).path;
  return guid.empty() ? path : fmt::format("{} (process {})", path, guid);
}

}  // namespace rpl::analysis::detail
