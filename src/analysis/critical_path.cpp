// The critical path of the DAG: longest path by duration (the critical path method), slack from a
// backward pass, each kernel's share of the path, and its impact from the longest path evaluated
// again with that kernel twice as fast.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "dag_graph.hpp"

namespace rpl::analysis {
namespace {

using detail::DagGraph;
using detail::kNone;

// Earliest finish of every node; best_pred (when asked) the predecessor that finished last, ties
// to the earliest node.
std::vector<int64_t> earliest_finish(const DagGraph& g, const std::vector<int64_t>& duration,
                                     std::vector<uint32_t>* best_pred = nullptr) {
  const size_t n = g.size();
  std::vector<int64_t> finish(n);
  if (best_pred) best_pred->assign(n, kNone);
  for (size_t v = 0; v < n; ++v) {
    int64_t ready = 0;
    uint32_t from = kNone;
    for (uint32_t e = g.pred_begin[v]; e < g.pred_begin[v + 1]; ++e) {
      const uint32_t p = g.preds[e];
      if (finish[p] > ready || (finish[p] == ready && from != kNone && p < from)) {
        ready = finish[p];
        from = p;
      }
    }
    finish[v] = ready + duration[v];
    if (best_pred) (*best_pred)[v] = from;
  }
  return finish;
}

int64_t longest(const std::vector<int64_t>& finish) {
  return finish.empty() ? 0 : *std::max_element(finish.begin(), finish.end());
}

struct Groups {
  std::vector<DagKernel> kernels;
  std::vector<int32_t> of_node;  // -1 for host synchronizations
};

Groups group_nodes(const trace::Trace& trace, const DagGraph& g) {
  Groups out;
  std::map<std::pair<bool, std::string>, int32_t> index;
  auto group = [&](bool is_copy, const std::string& name) {
    auto [it, inserted] = index.try_emplace({is_copy, name}, static_cast<int32_t>(out.kernels.size()));
    if (inserted) {
      DagKernel k;
      k.name = name;
      k.is_copy = is_copy;
      out.kernels.push_back(std::move(k));
    }
    return it->second;
  };
  std::vector<int32_t> of_symbol(trace.symbols.size(), -1);
  out.of_node.assign(g.size(), -1);
  for (size_t v = 0; v < g.size(); ++v) {
    const DagNode& node = g.nodes[v];
    if (node.kind == DagNode::Kind::dispatch) {
      const int32_t sym = trace.dispatches[node.index].symbol;
      if (of_symbol[static_cast<size_t>(sym)] < 0) of_symbol[static_cast<size_t>(sym)] = group(false, trace.symbols[static_cast<size_t>(sym)].name());
      out.of_node[v] = of_symbol[static_cast<size_t>(sym)];
    } else if (node.kind == DagNode::Kind::copy) {
      const auto& name = trace.memory_copies[node.index].name;
      out.of_node[v] = group(true, name.empty() ? "memory copy" : name);
    }
  }
  return out;
}

// Each process's longest path and the observed span of its work.
void measure_processes(DagGraph& g, const std::vector<int64_t>& finish) {
  std::vector<int64_t> first_start(g.processes.size(), INT64_MAX), last_end(g.processes.size(), INT64_MIN);
  for (size_t v = 0; v < g.size(); ++v) {
    const uint32_t p = g.process[v];
    g.processes[p].critical_path_ns = std::max(g.processes[p].critical_path_ns, finish[v]);
    if (g.nodes[v].kind == DagNode::Kind::host_sync) continue;
    first_start[p] = std::min(first_start[p], g.start_ns[v]);
    last_end[p] = std::max(last_end[p], g.start_ns[v] + g.duration_ns[v]);
  }
  for (size_t p = 0; p < g.processes.size(); ++p) {
    if (first_start[p] <= last_end[p]) g.processes[p].makespan_ns = last_end[p] - first_start[p];
  }
}

// An idle stretch longer than this within one process's GPU work is no pause of a program: the
// records of different runs in one file (a tool's sample files, traces concatenated).
constexpr int64_t kRunGapNs = int64_t{3600} * 1'000'000'000;

// Says where a process's work has such a gap, since its span (and the share of it busy) counts it.
void warn_of_run_gaps(const trace::Trace& trace, DagGraph& g) {
  std::vector<std::vector<std::pair<int64_t, int64_t>>> work(g.processes.size());
  for (size_t v = 0; v < g.size(); ++v) {
    if (g.nodes[v].kind != DagNode::Kind::host_sync) work[g.process[v]].emplace_back(g.start_ns[v], g.start_ns[v] + g.duration_ns[v]);
  }
  for (size_t p = 0; p < work.size(); ++p) {
    auto& spans = work[p];
    std::sort(spans.begin(), spans.end());
    int64_t widest = 0, busy_until = INT64_MIN;
    for (const auto& [start, end] : spans) {
      if (busy_until != INT64_MIN) widest = std::max(widest, start - busy_until);
      busy_until = std::max(busy_until, end);
    }
    if (widest <= kRunGapNs) continue;
    const double hours = static_cast<double>(widest) / 3.6e12;
    g.warnings.push_back(fmt::format("{}: its GPU work stops for {} between two operations: records of different runs in one "
                                     "trace? Its span counts that gap",
                                     detail::process_label(trace, g.processes[p].source, g.processes[p].guid),
                                     hours >= 48 ? fmt::format("{:.1f} days", hours / 24) : fmt::format("{:.1f} hours", hours)));
  }
}

// Back from the node that finishes last (the earliest such node), through the predecessors that
// held each node back; in path order.
std::vector<uint32_t> critical_nodes(const std::vector<int64_t>& finish, const std::vector<uint32_t>& best_pred) {
  std::vector<uint32_t> path;
  if (finish.empty()) return path;
  const auto end = static_cast<uint32_t>(std::max_element(finish.begin(), finish.end()) - finish.begin());
  for (uint32_t v = end; v != kNone; v = best_pred[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<CriticalPathStep> steps_of(const DagGraph& g, const std::vector<uint32_t>& path) {
  std::vector<CriticalPathStep> steps;
  for (size_t i = 0; i < path.size(); ++i) {
    CriticalPathStep step;
    step.node = g.nodes[path[i]];
    step.start_ns = g.start_ns[path[i]];
    step.duration_ns = g.duration_ns[path[i]];
    for (uint32_t e = g.pred_begin[path[i]]; i > 0 && e < g.pred_begin[path[i] + 1]; ++e) {
      if (g.preds[e] == path[i - 1]) {
        step.via = g.pred_kinds[e];
        break;
      }
    }
    steps.push_back(step);
  }
  return steps;
}

// Latest finish against the node's own process's critical path, less its earliest finish.
std::vector<int64_t> slack_of(const DagGraph& g, const std::vector<int64_t>& finish) {
  const size_t n = g.size();
  std::vector<int64_t> latest_finish(n);
  for (size_t v = 0; v < n; ++v) latest_finish[v] = g.processes[g.process[v]].critical_path_ns;
  for (size_t v = n; v-- > 0;) {
    const int64_t latest_start = latest_finish[v] - g.duration_ns[v];
    for (uint32_t e = g.pred_begin[v]; e < g.pred_begin[v + 1]; ++e) {
      latest_finish[g.preds[e]] = std::min(latest_finish[g.preds[e]], latest_start);
    }
  }
  std::vector<int64_t> slack(n);
  for (size_t v = 0; v < n; ++v) slack[v] = latest_finish[v] - finish[v];
  return slack;
}

// Per kernel (or kind of copy): dispatches, time on the path, slack, and for the largest shares
// of the path its length with that kernel twice as fast. Ordered by their time on the path.
std::vector<DagKernel> kernel_shares(const trace::Trace& trace, const DagGraph& g, const std::vector<uint32_t>& path,
                                     const std::vector<int64_t>& slack, int64_t critical_path_ns,
                                     const DagOptions& options) {
  Groups groups = group_nodes(trace, g);
  auto& kernels = groups.kernels;
  std::vector<std::vector<int64_t>> slacks(kernels.size());
  for (size_t v = 0; v < g.size(); ++v) {
    if (groups.of_node[v] < 0) continue;
    ++kernels[static_cast<size_t>(groups.of_node[v])].dispatches;
    slacks[static_cast<size_t>(groups.of_node[v])].push_back(slack[v]);
  }
  for (uint32_t v : path) {
    if (groups.of_node[v] < 0) continue;
    auto& k = kernels[static_cast<size_t>(groups.of_node[v])];
    ++k.on_path;
    k.path_ns += g.duration_ns[v];
  }
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto& k = kernels[i];
    auto& s = slacks[i];
    if (critical_path_ns > 0) k.critical_path_score = static_cast<double>(k.path_ns) / static_cast<double>(critical_path_ns);
    if (s.empty()) continue;
    k.min_slack_ns = *std::min_element(s.begin(), s.end());
    auto mid = s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2);
    std::nth_element(s.begin(), mid, s.end());
    k.median_slack_ns = *mid;
  }
  std::vector<size_t> ranked(kernels.size());
  for (size_t i = 0; i < ranked.size(); ++i) ranked[i] = i;
  std::sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) {
    const auto &ka = kernels[a], &kb = kernels[b];
    if (ka.path_ns != kb.path_ns) return ka.path_ns > kb.path_ns;
    if (ka.is_copy != kb.is_copy) return !ka.is_copy;
    return ka.name < kb.name;
  });
  for (size_t rank = 0; rank < ranked.size() && rank < options.impact_kernels; ++rank) {
    auto& k = kernels[ranked[rank]];
    if (k.path_ns == 0) break;
    std::vector<int64_t> faster = g.duration_ns;
    for (size_t v = 0; v < g.size(); ++v) {
      if (groups.of_node[v] == static_cast<int32_t>(ranked[rank])) faster[v] /= 2;
    }
    k.critical_path_ns_if_2x = longest(earliest_finish(g, faster));
  }
  std::vector<DagKernel> out;
  for (size_t i : ranked) out.push_back(std::move(kernels[i]));
  return out;
}

}  // namespace

DagResult analyze_dag(const trace::Trace& trace, const DagOptions& options) {
  DagGraph g = detail::build_dag_graph(trace, options);
  std::vector<uint32_t> best_pred;
  const std::vector<int64_t> finish = earliest_finish(g, g.duration_ns, &best_pred);
  measure_processes(g, finish);
  warn_of_run_gaps(trace, g);
  const auto path = critical_nodes(finish, best_pred);

  DagResult r;
  r.nodes = g.size();
  r.edge_counts = g.edge_counts;
  r.critical_path_ns = longest(finish);
  if (!path.empty()) r.critical_process = g.process[path.back()];
  r.path = steps_of(g, path);
  r.slack_ns = slack_of(g, finish);
  r.kernels = kernel_shares(trace, g, path, r.slack_ns, r.critical_path_ns, options);
  r.node_order = std::move(g.nodes);
  r.node_process = std::move(g.process);
  r.processes = std::move(g.processes);
  r.cross_edges = std::move(g.cross_edges);
  r.warnings = std::move(g.warnings);
  return r;
}

}  // namespace rpl::analysis
