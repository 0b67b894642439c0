// The DAG and its critical path on hand-built traces whose answer is known.
#include <gtest/gtest.h>

#include <rpl/analysis/dag.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"
#include "trace_builder.hpp"

namespace rpl::analysis {
namespace {

using trace::EventOperationKind;

// A trace of one process whose operations carry correlation ids (enqueue order): each call below
// is the next API call of the program.
class DagTrace {
 public:
  DagTrace() {
    trace.sources.push_back({"run1.db", {"g"}, {}, {}, {}});
    trace::Agent gpu;
    gpu.guid = "g";
    gpu.id = 1;
    gpu.type = "GPU";
    gpu.name = "sm_90";
    trace.agents.push_back(gpu);
    trace.geometries.push_back({});
  }
  // A kernel on stream, running [start, start + duration).
  void kernel(const std::string& name, int64_t stream, int64_t start, int64_t duration) {
    trace::Dispatch d{};
    d.id = static_cast<int64_t>(trace.dispatches.size()) + 1;
    d.symbol = test::symbol_named(trace, name);
    d.stream_id = d.queue_id = stream;
    d.start_ns = start;
    d.end_ns = start + duration;
    d.correlation_id = ++correlation_;
    trace.dispatches.push_back(d);
  }
  void copy(int64_t stream, int64_t start, int64_t duration) {
    trace::MemoryCopy c;
    c.guid = "g";
    c.id = static_cast<int64_t>(trace.memory_copies.size()) + 1;
    c.name = "MEMORY_COPY_HOST_TO_DEVICE";
    c.stream_id = c.queue_id = stream;
    c.start_ns = start;
    c.end_ns = start + duration;
    c.correlation_id = ++correlation_;
    trace.memory_copies.push_back(c);
  }
  void op(EventOperationKind kind, int64_t stream, int64_t event) {
    trace::EventOperation e;
    e.guid = "g";
    e.kind = kind;
    e.stream_id = stream;
    e.event = event;
    e.correlation_id = ++correlation_;
    trace.event_operations.push_back(e);
  }
  void record(int64_t stream, int64_t event) { op(EventOperationKind::event_record, stream, event); }
  void wait(int64_t stream, int64_t event) { op(EventOperationKind::stream_wait_event, stream, event); }

  std::vector<std::string> path_names(const DagResult& r) const {
    std::vector<std::string> names;
    for (const auto& step : r.path) {
      if (step.node.kind == DagNode::Kind::dispatch) {
        names.push_back(trace.symbols[static_cast<size_t>(trace.dispatches[step.node.index].symbol)].name());
      } else {
        names.push_back(step.node.kind == DagNode::Kind::copy ? "copy" : "sync");
      }
    }
    return names;
  }
  int64_t slack_of(const DagResult& r, uint32_t dispatch) const {
    for (size_t v = 0; v < r.node_order.size(); ++v) {
      if (r.node_order[v] == DagNode{DagNode::Kind::dispatch, dispatch}) return r.slack_ns[v];
    }
    return -1;
  }
  static const DagKernel& kernel_of(const DagResult& r, const std::string& name) {
    for (const auto& k : r.kernels) {
      if (k.name == name) return k;
    }
    throw std::runtime_error("no kernel " + name);
  }

  trace::Trace trace;

 private:
  int64_t correlation_ = 0;
};

using Names = std::vector<std::string>;

TEST(Dag, SingleDispatch) {
  DagTrace t;
  t.kernel("a", 1, 1000, 500);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.nodes, 1u);
  EXPECT_EQ(r.critical_path_ns, 500);
  EXPECT_EQ(t.path_names(r), Names{"a"});
  EXPECT_FALSE(r.path[0].via.has_value());
  EXPECT_EQ(t.slack_of(r, 0), 0);
  const auto& a = DagTrace::kernel_of(r, "a");
  EXPECT_DOUBLE_EQ(a.critical_path_score, 1.0);
  EXPECT_EQ(a.critical_path_ns_if_2x, 250);
  EXPECT_EQ(r.processes.at(0).makespan_ns, 500);
}

TEST(Dag, ChainOnOneStreamIsTheSumOfItsDurations) {
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  t.kernel("b", 1, 150, 200);
  t.kernel("c", 1, 400, 300);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 600);
  EXPECT_EQ(t.path_names(r), (Names{"a", "b", "c"}));
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::stream)], 2u);
  EXPECT_EQ(r.path[1].via, EdgeKind::stream);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(t.slack_of(r, i), 0);
  EXPECT_EQ(DagTrace::kernel_of(r, "c").critical_path_ns_if_2x, 450);
  EXPECT_EQ(r.kernels.front().name, "c");  // largest share first
  EXPECT_EQ(r.processes.at(0).makespan_ns, 700);
}

// Work that stops for more than an hour is records of different runs, not a program's pause (the
// rocprofiler-sdk docs' kernel and copy samples lie 5.7 days apart): the span counts the gap, and
// a warning says so. A pause of minutes is a program's own.
TEST(Dag, AGapOfHoursInAProcesssWorkIsAWarning) {
  const int64_t minute = int64_t{60} * 1'000'000'000;
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  t.copy(2, 50, 100);
  t.kernel("b", 1, 150 + 50 * minute, 100);
  EXPECT_TRUE(analyze_dag(t.trace).warnings.empty()) << "50 minutes idle";
  t.kernel("c", 2, 150 + 150 * minute, 100);
  const auto r = analyze_dag(t.trace);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("run1.db (process g): its GPU work stops for 1.7 hours between two operations"), std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(r.processes.at(0).makespan_ns, 150 * minute + 250) << "the span still counts it";
  t.kernel("d", 1, 150 + 150 * minute + 5 * 24 * 60 * minute, 100);
  EXPECT_NE(analyze_dag(t.trace).warnings.at(0).find("stops for 5.0 days"), std::string::npos);
}

TEST(Dag, ParallelBranchesJoinedByEvents) {
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  t.record(1, 11);
  t.kernel("b", 2, 0, 500);
  t.record(2, 12);
  t.wait(3, 11);
  t.wait(3, 12);
  t.kernel("c", 3, 500, 100);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 600);
  EXPECT_EQ(t.path_names(r), (Names{"b", "c"}));
  EXPECT_EQ(r.path[1].via, EdgeKind::event);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::event)], 2u);
  ASSERT_EQ(r.cross_edges.size(), 2u);
  EXPECT_EQ(r.cross_edges[0].kind, EdgeKind::event);
  EXPECT_EQ(t.slack_of(r, 0), 400);  // a could finish at 500 without delaying c
  EXPECT_EQ(t.slack_of(r, 1), 0);
  // b twice as fast: the path becomes max(100, 250) + 100, not 600 - 250.
  EXPECT_EQ(DagTrace::kernel_of(r, "b").critical_path_ns_if_2x, 350);
  EXPECT_EQ(DagTrace::kernel_of(r, "c").critical_path_ns_if_2x, 550);
  EXPECT_FALSE(DagTrace::kernel_of(r, "a").critical_path_ns_if_2x.has_value());  // off the path
  EXPECT_DOUBLE_EQ(DagTrace::kernel_of(r, "b").critical_path_score, 500.0 / 600.0);
}

TEST(Dag, FanOutAndFanIn) {
  DagTrace t;
  t.kernel("root", 1, 0, 100);
  t.record(1, 1);
  t.wait(2, 1);
  t.kernel("left", 2, 100, 300);
  t.record(2, 2);
  t.wait(3, 1);
  t.kernel("right", 3, 100, 200);
  t.record(3, 3);
  t.wait(1, 2);
  t.wait(1, 3);
  t.kernel("join", 1, 400, 50);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 450);
  EXPECT_EQ(t.path_names(r), (Names{"root", "left", "join"}));
  EXPECT_EQ(t.slack_of(r, 2), 100);  // right
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::event)], 4u);
}

TEST(Dag, TiesPickTheEarliestBranchAndImpactSeesTheOtherBranch) {
  DagTrace t;
  t.kernel("root", 1, 0, 100);
  t.record(1, 1);
  t.wait(2, 1);
  t.kernel("x", 2, 100, 300);
  t.wait(3, 1);
  t.kernel("y", 3, 100, 300);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 400);
  EXPECT_EQ(t.path_names(r), (Names{"root", "x"}));
  EXPECT_EQ(t.slack_of(r, 2), 0);  // y is critical too
  // Halving x leaves y's branch as long: nothing gained (Amdahl alone would say 150).
  EXPECT_EQ(DagTrace::kernel_of(r, "x").critical_path_ns_if_2x, 400);
  // Same answer, same bytes: run twice.
  auto again = analyze_dag(t.trace);
  EXPECT_EQ(t.path_names(again), t.path_names(r));
}

TEST(Dag, HostSynchronizationOrdersWorkAcrossStreams) {
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  t.op(EventOperationKind::device_synchronize, 0, 0);
  t.kernel("b", 2, 120, 100);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 200);
  EXPECT_EQ(t.path_names(r), (Names{"a", "sync", "b"}));
  EXPECT_EQ(r.path[1].via, EdgeKind::host_sync);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::host_sync)], 2u);
}

TEST(Dag, StreamSynchronizeWaitsForThatStreamOnly) {
  DagTrace t;
  t.kernel("long", 1, 0, 1000);
  t.kernel("short", 2, 0, 100);
  t.op(EventOperationKind::stream_synchronize, 2, 0);
  t.kernel("after", 3, 150, 100);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 1000);  // after waits for short, not long
  EXPECT_EQ(t.path_names(r), Names{"long"});
  EXPECT_EQ(t.slack_of(r, 2), 800);
}

TEST(Dag, EventSynchronizeWaitsForTheRecordedWork) {
  DagTrace t;
  t.kernel("a", 1, 0, 300);
  t.record(1, 5);
  t.kernel("later", 1, 300, 1000);  // recorded after the event: not waited for
  t.op(EventOperationKind::event_synchronize, 0, 5);
  t.kernel("b", 2, 320, 100);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 1300);
  EXPECT_EQ(t.slack_of(r, 2), 900);  // b: 300 + 100 against 1300
}

TEST(Dag, WaitOnAnEventNeverRecordedIsAWarningAndNoEdge) {
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  t.wait(2, 99);
  t.kernel("b", 2, 0, 100);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 100);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::event)], 0u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("event 99"), std::string::npos) << r.warnings[0];
}

TEST(Dag, MemoryCopiesAreNodes) {
  DagTrace t;
  t.copy(1, 0, 400);
  t.kernel("k", 1, 400, 100);
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.nodes, 2u);
  EXPECT_EQ(r.critical_path_ns, 500);
  EXPECT_EQ(t.path_names(r), (Names{"copy", "k"}));
  EXPECT_TRUE(DagTrace::kernel_of(r, "MEMORY_COPY_HOST_TO_DEVICE").is_copy);
}

TEST(Dag, OverlapOnOneStreamIsAWarning) {
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  t.kernel("b", 1, 50, 100);
  t.record(1, 1);  // event operations recorded: the stream is in enqueue order
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 200);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("start before the previous one on their stream ended"), std::string::npos);
}

// Without event operations, an op that starts right after another stream's op ended, and long
// after its own stream was free, is taken to have waited for it.
TEST(Dag, InferredEdgesOnlyWithoutRecordedDependencies) {
  DagTrace t;
  t.kernel("a", 1, 0, 1000);
  t.kernel("b", 2, 1002, 500);  // 2 ns after a ended
  t.kernel("c", 3, 0, 100);
  t.kernel("d", 3, 105, 100);   // its own stream held it: no inference
  for (auto& d : t.trace.dispatches) d.correlation_id = 0;
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.critical_path_ns, 1500);
  EXPECT_EQ(t.path_names(r), (Names{"a", "b"}));
  EXPECT_EQ(r.path[1].via, EdgeKind::inferred);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::inferred)], 1u);
  EXPECT_FALSE(r.processes[0].dependencies_recorded);

  auto none = analyze_dag(t.trace, {.infer_threshold_ns = 0});
  EXPECT_EQ(none.critical_path_ns, 1000);
  EXPECT_EQ(none.edge_counts[static_cast<size_t>(EdgeKind::inferred)], 0u);

  // With event operations recorded, absence of an edge means independence.
  for (int64_t i = 0; i < 4; ++i) t.trace.dispatches[static_cast<size_t>(i)].correlation_id = i + 1;
  t.record(1, 1);
  auto recorded = analyze_dag(t.trace);
  EXPECT_TRUE(recorded.processes[0].dependencies_recorded);
  EXPECT_EQ(recorded.critical_path_ns, 1000);
}

TEST(Dag, ProcessesAreSeparateGraphs) {
  DagTrace t;
  t.kernel("a", 1, 0, 100);
  trace::Agent other = t.trace.agents[0];
  other.guid = "h";
  t.trace.agents.push_back(other);
  t.kernel("b", 1, 0, 300);
  t.trace.dispatches.back().agent = 1;
  auto r = analyze_dag(t.trace);
  ASSERT_EQ(r.processes.size(), 2u);
  EXPECT_EQ(r.critical_path_ns, 300);
  EXPECT_EQ(r.processes[r.critical_process].guid, "h");
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::stream)], 0u);  // same stream id, other process
  EXPECT_EQ(t.slack_of(r, 0), 0);  // slack against its own process's path
}

TEST(Dag, EmptyTrace) {
  DagTrace t;
  auto r = analyze_dag(t.trace);
  EXPECT_EQ(r.nodes, 0u);
  EXPECT_EQ(r.critical_path_ns, 0);
  EXPECT_TRUE(r.path.empty());
}

// The multistream scenario, written to a rocpd database and read back: a copy, then four
// fork-join steps whose long branch is known to be critical.
TEST(Dag, MultistreamScenarioFromTheDatabase) {
  const auto dir = test::fresh_dir("dag_multistream");
  const auto t = trace::read_rocpd({test::scenario("multistream", 1, dir)});
  auto r = analyze_dag(t);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  EXPECT_EQ(r.nodes, 16u + 1u + 1u);  // dispatches, the copy, the device synchronization
  EXPECT_EQ(r.critical_path_ns, 200'000 + 4 * (100'000 + 300'000 + 50'000));
  EXPECT_EQ(r.processes.at(0).makespan_ns, r.critical_path_ns);  // the scenario runs with no gaps
  std::vector<std::string> names;
  for (const auto& step : r.path) {
    names.push_back(step.node.kind == DagNode::Kind::dispatch
                        ? t.symbols[static_cast<size_t>(t.dispatches[step.node.index].symbol)].name()
                        : "copy");
  }
  std::vector<std::string> expected = {"copy"};
  for (int i = 0; i < 4; ++i) {
    for (const char* k : {"produce(float*)", "branch_long(float*)", "combine(float*)"}) expected.push_back(k);
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::event)], 4u * 4u);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::inferred)], 0u);
  const auto& top = r.kernels.front();
  EXPECT_EQ(top.name, "branch_long(float*)");
  EXPECT_NEAR(top.critical_path_score, 1'200'000.0 / 2'000'000.0, 1e-12);
  // Twice as fast, the long branch still outlasts the short one: 200 + 4 * (100 + 150 + 50).
  EXPECT_EQ(top.critical_path_ns_if_2x, 200'000 + 4 * 300'000);
  EXPECT_EQ(DagTrace::kernel_of(r, "branch_short(float*)").min_slack_ns, 200'000);
}

// An AMD trace whose dependencies come from the HIP API calls (tests/fixtures/rocpd_v3_hip_api.sql):
// produce -> consume through e1, consume -> tail through e1's second recording, finish after the
// host waited for e2; the wait on e3, never recorded, adds nothing.
TEST(Dag, HipApiEventsFromAnAmdTrace) {
  DagTrace d;
  d.trace = trace::read_rocpd({test::database_from_sql("rocpd_v3_hip_api.sql", test::fresh_dir("dag_hip_api"))});
  const auto r = analyze_dag(d.trace);
  ASSERT_EQ(r.processes.size(), 1u);
  EXPECT_TRUE(r.processes[0].dependencies_recorded);
  EXPECT_EQ(r.edge_counts[static_cast<size_t>(EdgeKind::inferred)], 0u);
  std::vector<std::pair<std::string, std::string>> events;
  for (const auto& e : r.cross_edges) {
    if (e.kind != EdgeKind::event) continue;
    auto name = [&](const DagNode& n) {
      return d.trace.symbols[static_cast<size_t>(d.trace.dispatches[n.index].symbol)].name();
    };
    events.emplace_back(name(e.from), name(e.to));
  }
  EXPECT_EQ(events, (std::vector<std::pair<std::string, std::string>>{{"produce(float*)", "consume(float*)"},
                                                                       {"consume(float*)", "tail(float*)"}}));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("recording"), std::string::npos) << r.warnings[0];
  EXPECT_EQ(r.critical_path_ns, 100'000 + 30'000 + 10'000);
  const auto names = d.path_names(r);
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(Names(names.begin(), names.begin() + 2), (Names{"produce(float*)", "consume(float*)"}));
  EXPECT_EQ(d.slack_of(r, 1), 50'000) << "side could end 50 us later";
}

}  // namespace
}  // namespace rpl::analysis
