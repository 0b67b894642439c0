#include <rpl/report/dag_json.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace rpl::report {
namespace {

using analysis::DagNode;

const char* kind_name(DagNode::Kind kind) {
  switch (kind) {
    case DagNode::Kind::dispatch:
      return "dispatch";
    case DagNode::Kind::copy:
      return "copy";
    case DagNode::Kind::host_sync:
      return "host_sync";
  }
  return "dispatch";
}

// The rocpd id of a node (dispatch or copy id; a host synchronization's correlation id) and its stream.
struct NodeFacts {
  int64_t id = 0;
  int64_t stream = 0;
  std::string name;
};

NodeFacts facts(const trace::Trace& trace, const DagNode& node) {
  switch (node.kind) {
    case DagNode::Kind::dispatch: {
      const auto& d = trace.dispatches[node.index];
      return {d.id, d.stream_id, trace.symbols[static_cast<size_t>(d.symbol)].name()};
    }
    case DagNode::Kind::copy: {
      const auto& c = trace.memory_copies[node.index];
      return {c.id, c.stream_id, c.name};
    }
    case DagNode::Kind::host_sync: {
      const auto& op = trace.event_operations[node.index];
      return {op.correlation_id, op.stream_id, trace::event_operation_name(op.kind)};
    }
  }
  return {};
}

Json node_ref(const trace::Trace& trace, const DagNode& node, uint32_t process) {
  return {{"process", process}, {"kind", kind_name(node.kind)}, {"id", facts(trace, node).id}};
}

Json edge_kind(std::optional<analysis::EdgeKind> kind) {
  return kind ? Json(analysis::kEdgeKindNames[static_cast<size_t>(*kind)]) : Json(nullptr);
}

// {count, truncated, items} of a list cut at kDagListLimit.
template <typename Each>
Json limited_list(size_t count, Each each) {
  Json items = Json::array();
  for (size_t i = 0; i < std::min(count, kDagListLimit); ++i) items.push_back(each(i));
  return {{"count", count}, {"truncated", count > kDagListLimit}, {"items", std::move(items)}};
}

std::string ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

}  // namespace

Json dag_json(const analysis::DagResult& dag, const trace::Trace& trace, const analysis::DagOptions& options) {
  Json j = document_header();
  j["nodes"] = dag.nodes;
  Json edges;
  for (size_t k = 0; k < dag.edge_counts.size(); ++k) edges[analysis::kEdgeKindNames[k]] = dag.edge_counts[k];
  j["edges"] = edges;
  j["inference_threshold_ns"] = options.infer_threshold_ns;
  j["critical_path_ns"] = dag.critical_path_ns;
  j["makespan_ns"] = dag.processes.empty() ? 0 : dag.processes[dag.critical_process].makespan_ns;
  j["critical_process"] = dag.processes.empty() ? Json(nullptr) : Json(dag.critical_process);
  Json processes = Json::array();
  for (const auto& p : dag.processes) {
    processes.push_back({{"file", trace.sources.at(static_cast<size_t>(p.source)).path},
                         {"guid", p.guid},
                         {"nodes", p.nodes},
                         {"dependencies", p.laid_end_to_end ? "laid_end_to_end" : p.dependencies_recorded ? "recorded" : "inferred"},
                         {"critical_path_ns", p.critical_path_ns},
                         {"makespan_ns", p.makespan_ns}});
  }
  j["processes"] = std::move(processes);
  Json kernels = Json::array();
  for (const auto& k : dag.kernels) {
    Json impact = nullptr;
    if (k.critical_path_ns_if_2x) {
      const int64_t saved = dag.critical_path_ns - *k.critical_path_ns_if_2x;
      impact = {{"speedup", 2},
                {"critical_path_ns", *k.critical_path_ns_if_2x},
                {"saved_ns", saved},
                {"saved_fraction", round6(dag.critical_path_ns > 0 ? static_cast<double>(saved) / static_cast<double>(dag.critical_path_ns) : 0)}};
    }
    kernels.push_back({{"name", k.name},
                       {"short_name", analysis::short_kernel_name(k.name)},
                       {"kind", k.is_copy ? "copy" : "kernel"},
                       {"dispatches", k.dispatches},
                       {"on_critical_path", k.on_path},
                       {"critical_path_ns", k.path_ns},
                       {"critical_path_score", round6(k.critical_path_score)},
                       {"min_slack_ns", k.min_slack_ns},
                       {"median_slack_ns", k.median_slack_ns},
                       {"impact", std::move(impact)}});
  }
  j["kernels"] = std::move(kernels);
  j["critical_path"] = limited_list(dag.path.size(), [&](size_t i) {
    const auto& step = dag.path[i];
    const NodeFacts f = facts(trace, step.node);
    return Json{{"kind", kind_name(step.node.kind)}, {"id", f.id},          {"name", f.name},
                {"stream", f.stream},                {"start_ns", step.start_ns}, {"duration_ns", step.duration_ns},
                {"via", edge_kind(step.via)}};
  });
  j["cross_edges"] = limited_list(dag.cross_edges.size(), [&](size_t i) {
    const auto& e = dag.cross_edges[i];
    return Json{{"from", node_ref(trace, e.from, e.process)}, {"to", node_ref(trace, e.to, e.process)},
                {"kind", edge_kind(e.kind)}};
  });
  j["slack"] = limited_list(dag.node_order.size(), [&](size_t i) {
    Json ref = node_ref(trace, dag.node_order[i], dag.node_process[i]);
    ref["slack_ns"] = dag.slack_ns[i];
    return ref;
  });
  j["warnings"] = dag.warnings;
  return j;
}

std::string dag_text(const analysis::DagResult& dag, analysis::NameStyle names) {
  if (dag.nodes == 0) return "";
  const auto& process = dag.processes[dag.critical_process];
  const std::string how = process.laid_end_to_end
                              ? "launches timed one at a time and laid end to end: their sum, not the program's timeline"
                              : fmt::format("{} span{}", ms(process.makespan_ns),
                                            process.dependencies_recorded ? "" : "; cross-stream dependencies inferred");
  std::string text = fmt::format("DAG         critical path {} through {} of {} GPU operations ({})\n", ms(dag.critical_path_ns),
                                 dag.path.size(), dag.nodes, how);
  if (!dag.kernels.empty() && dag.kernels.front().path_ns > 0) {
    const auto& k = dag.kernels.front();
    text += fmt::format("            {} holds {:.1f} % of it", analysis::kernel_label(k.name, names), 100.0 * k.critical_path_score);
    if (k.critical_path_ns_if_2x) {
      text += fmt::format("; twice as fast it would save {}", ms(dag.critical_path_ns - *k.critical_path_ns_if_2x));
    }
    text += "\n";
  }
  return text;
}

}  // namespace rpl::report
