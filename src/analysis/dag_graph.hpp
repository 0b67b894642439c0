#pragma once
// The DAG as arrays, nodes in a topological order (every edge goes from an earlier node to a later
// one), predecessors in compressed rows. Built by dag_build.cpp, walked by critical_path.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <rpl/analysis/dag.hpp>

namespace rpl::analysis::detail {

inline constexpr uint32_t kNone = UINT32_MAX;

struct DagGraph {
  std::vector<DagNode> nodes;
  std::vector<uint32_t> process;  // index into processes
  std::vector<int64_t> start_ns, duration_ns;
  std::vector<uint32_t> pred_begin;  // node v's predecessors: preds[pred_begin[v] .. pred_begin[v + 1])
  std::vector<uint32_t> preds;
  std::vector<EdgeKind> pred_kinds;
  std::vector<DagProcess> processes;
  std::array<size_t, kEdgeKindNames.size()> edge_counts{};
  std::vector<DagEdge> cross_edges;
  std::vector<std::string> warnings;

  size_t size() const { return nodes.size(); }
};

DagGraph build_dag_graph(const trace::Trace& trace, const DagOptions& options);

/// How warnings name a process: its file, and its GUID where the file holds several.
std::string process_label(const trace::Trace& trace, int32_t source, const std::string& guid);

}  // namespace rpl::analysis::detail
