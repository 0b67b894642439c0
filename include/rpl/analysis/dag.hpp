#pragma once
// The dependency DAG of a trace's GPU work and its critical path (docs/dependencies.md).
// Nodes are kernel dispatches, memory copies and host synchronizations; edges are the order within
// a stream, the event records and waits the program made, and host waits. Where a process recorded
// no event operations at all, cross-stream edges are inferred from timestamps and marked so.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

enum class EdgeKind : uint8_t { stream, event, host_sync, legacy_stream, graph, inferred };
inline constexpr std::array<const char*, 6> kEdgeKindNames = {"stream", "event", "host_sync", "legacy_stream", "graph",
                                                              "inferred"};

struct DagOptions {
  /// An op that starts within this long after an op of another stream ended, and more than this
  /// long after its own stream's previous op, is taken to have waited for it (inference only).
  /// 0 infers nothing.
  int64_t infer_threshold_ns = 10'000;
  /// How many kernels, by their share of the critical path, get an impact estimate.
  size_t impact_kernels = 16;
};

/// A node: a dispatch (index into Trace::dispatches), a memory copy (Trace::memory_copies) or a
/// host synchronization (Trace::event_operations).
struct DagNode {
  enum class Kind : uint8_t { dispatch, copy, host_sync } kind = Kind::dispatch;
  uint32_t index = 0;
  bool operator==(const DagNode&) const = default;
};

struct DagEdge {
  DagNode from, to;
  EdgeKind kind = EdgeKind::stream;
  uint32_t process = 0;  // edges never leave a process
};

struct CriticalPathStep {
  DagNode node;
  int64_t start_ns = 0, duration_ns = 0;
  std::optional<EdgeKind> via;  // the edge from the previous step; none for the first
};

/// What one kernel (or kind of copy) contributes to the critical path.
struct DagKernel {
  std::string name;
  bool is_copy = false;
  size_t dispatches = 0;
  size_t on_path = 0;
  int64_t path_ns = 0;              // its time on the critical path
  double critical_path_score = 0;   // path_ns / critical_path_ns
  int64_t min_slack_ns = 0, median_slack_ns = 0;
  /// The critical path's length if every dispatch of it ran twice as fast, from the longest path
  /// evaluated again; none where it was not evaluated (off the path, or beyond impact_kernels).
  std::optional<int64_t> critical_path_ns_if_2x;
};

struct DagProcess {
  int32_t source = 0;
  std::string guid;
  size_t nodes = 0;
  bool dependencies_recorded = false;  // it recorded event operations (no inference for it)
  // Its launches were timed one at a time and laid end to end (ncu): its path is their sum, in the
  // order profiled, not the program's own overlap and gaps.
  bool laid_end_to_end = false;
  int64_t critical_path_ns = 0;
  int64_t makespan_ns = 0;             // first start to last end of its GPU work
};

struct DagResult {
  size_t nodes = 0;
  std::array<size_t, kEdgeKindNames.size()> edge_counts{};  // by EdgeKind
  std::vector<DagEdge> cross_edges;     // every edge that is not stream order, in node order
  std::vector<DagProcess> processes;
  size_t critical_process = 0;          // the process holding the longest path
  int64_t critical_path_ns = 0;
  std::vector<CriticalPathStep> path;
  /// Slack of every node, in the order of node_order: how much later it could have finished
  /// without lengthening its process's critical path.
  std::vector<DagNode> node_order;
  std::vector<uint32_t> node_process;
  std::vector<int64_t> slack_ns;
  std::vector<DagKernel> kernels;       // by path_ns, then name
  std::vector<std::string> warnings;
};

/// Builds the DAG of every process in the trace and finds its critical path.
DagResult analyze_dag(const trace::Trace& trace, const DagOptions& options = {});

}  // namespace rpl::analysis
