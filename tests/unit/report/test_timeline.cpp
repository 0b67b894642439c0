// The report's timeline document: lanes per (process, stream), operations by start, the critical
// path's steps found among them, the cap on what is drawn.
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <rpl/analysis/dag.hpp>
#include <rpl/report/perfetto_export.hpp>
#include <rpl/report/timeline.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "../analysis/trace_builder.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
using nlohmann::json;

// Three kernels on stream 0 and one on stream 2, then a copy on stream 2.
trace::Trace two_streams() {
  TraceBuilder b;
  const int k = b.symbol("_Z4gemmv", "gemm"), r = b.symbol("_Z6reducev", "reduce");
  b.dispatch(k, 400);
  b.dispatch(r, 100);
  b.dispatch(k, 300);
  b.dispatch(r, 50);
  auto t = std::move(b.trace);
  t.dispatches[1].stream_id = 2;
  t.dispatches[1].start_ns = t.dispatches[0].start_ns + 20;  // runs beside the first
  t.dispatches[1].end_ns = t.dispatches[1].start_ns + 100;
  trace::MemoryCopy c;
  c.guid = "g";
  c.stream_id = 2;
  c.start_ns = t.dispatches.back().end_ns + 5;
  c.end_ns = c.start_ns + 70;
  c.size = 4096;
  c.name = "device to host";
  t.memory_copies.push_back(c);
  return t;
}

TEST(Timeline, LanesOperationsAndTheCriticalPath) {
  const auto trace = two_streams();
  const auto dag = analysis::analyze_dag(trace);
  const json t = report::timeline_json(trace, dag, 100);
  EXPECT_EQ(t["lanes"], json({"stream 0", "stream 2"}));
  EXPECT_EQ(t["operations"], 5);
  EXPECT_EQ(t["shown"], 5);
  EXPECT_EQ(t["origin_ns"], trace.dispatches[0].start_ns);
  EXPECT_EQ(t["start_ns"], json({0, 20, 520, 830, 885}));
  EXPECT_EQ(t["duration_ns"], json({400, 100, 300, 50, 70}));
  EXPECT_EQ(t["lane"], json({0, 1, 0, 0, 1}));
  EXPECT_EQ(t["kind"], json({0, 0, 0, 0, 1}));
  EXPECT_EQ(t["names"], json({"gemm", "reduce", "device to host"}));
  EXPECT_EQ(t["name"], json({0, 1, 0, 1, 2}));
  EXPECT_EQ(t["critical_path_ns"], dag.critical_path_ns);
  // Each critical step that is a bar is the operation at the index given, in the path's order.
  ASSERT_FALSE(dag.path.empty());
  std::vector<int64_t> expected;
  for (const auto& step : dag.path) {
    if (step.node.kind == analysis::DagNode::Kind::host_sync) continue;
    for (size_t i = 0; i < t["start_ns"].size(); ++i) {
      if (t["start_ns"][i].get<int64_t>() + t["origin_ns"].get<int64_t>() == step.start_ns &&
          t["duration_ns"][i].get<int64_t>() == step.duration_ns) {
        expected.push_back(static_cast<int64_t>(i));
      }
    }
  }
  EXPECT_EQ(t["critical"], json(expected));
  EXPECT_EQ(report::timeline_json(trace, dag, 100).dump(), t.dump()) << "same trace, same document";
}

TEST(Timeline, DrawsTheFirstOperationsWhereThereAreTooMany) {
  const auto trace = two_streams();
  const auto dag = analysis::analyze_dag(trace);
  const json t = report::timeline_json(trace, dag, 2);
  EXPECT_EQ(t["operations"], 5);
  EXPECT_EQ(t["shown"], 2);
  EXPECT_EQ(t["start_ns"], json({0, 20}));
  EXPECT_EQ(t["lanes"].size(), 2u) << "lanes are of the whole trace";
  for (const auto& i : t["critical"]) EXPECT_LT(i.get<int>(), 2);
}

TEST(Timeline, ProcessesGetLanesOfTheirOwn) {
  auto trace = two_streams();
  trace.sources.push_back({"run2.db", {"h"}, {}, {}, {}});
  trace::Dispatch d = trace.dispatches[0];
  d.source = 1;
  trace.dispatches.push_back(d);
  const json t = report::timeline_json(trace, analysis::analyze_dag(trace), 100);
  EXPECT_EQ(t["lanes"], json({"process 1 stream 0", "process 1 stream 2", "process 2 stream 0"}));
  const json empty = report::timeline_json(trace::Trace{}, analysis::DagResult{}, 100);
  EXPECT_EQ(empty["shown"], 0);
  EXPECT_EQ(empty["lanes"], json::array());
}

// The ranks of a multi-rank job: one lane group per rank, in rank order whatever the order of the
// databases, named with the host where the job spans several; a process without a rank after them.
// The Perfetto export names and orders its processes the same way.
TEST(Timeline, EachRankIsAGroupOfLanesInRankOrder) {
  auto trace = two_streams();
  trace.sources[0].rank = 1;
  trace.sources[0].host = "node1";
  trace.sources.push_back({"run2.db", {"h"}, {}, 0, "node2"});
  trace.sources.push_back({"run3.db", {"i"}, {}, {}, "node2"});
  for (int source : {1, 2}) {
    trace::Dispatch d = trace.dispatches[0];
    d.source = source;
    trace.dispatches.push_back(d);
  }
  const auto dag = analysis::analyze_dag(trace);
  const json t = report::timeline_json(trace, dag, 100);
  EXPECT_EQ(t["lanes"], json({"rank 0 on node2 stream 0", "rank 1 on node1 stream 0", "rank 1 on node1 stream 2",
                              "process 3 stream 0"}));
  std::ostringstream perfetto;
  report::write_perfetto_trace(trace, dag, perfetto);
  const auto events = json::parse(perfetto.str())["traceEvents"];
  std::map<int, std::string> processes;  // by pid, the order Perfetto shows them in (their sort index)
  for (const auto& e : events) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "rank 0 on node2: run2.db (process g)"},
                                                   {2, "rank 1 on node1: run1.db (process g)"},
                                                   {3, "run3.db (process g)"}}));
  // One host: the ranks need no host name.
  trace.sources[0].host = "node2";
  EXPECT_EQ(report::timeline_json(trace, dag, 100)["lanes"][1], "rank 1 stream 0");
}

// Where the GPU works: PyTorch's start-up and first calls are left out (idle gaps of 159, 28, 19
// and 16 ms in a 239 ms trace); a trace without long gaps is its own window.
TEST(Timeline, TheWindowWhereTheGpuWorks) {
  const auto trace = trace::read_rocpd({source_dir() / "examples/traces/torch_two_streams_h100.db"});
  const json w = report::timeline_json(trace, analysis::analyze_dag(trace), 1000)["window"];
  EXPECT_EQ(w["start_ns"].get<int64_t>() / 1000, 225421) << w;
  EXPECT_EQ(w["end_ns"], w["trace_end_ns"]);
  EXPECT_GT(w["busy_fraction"].get<double>(), 0.8);
  EXPECT_LT(w["whole_busy_fraction"].get<double>(), 0.1);
  const auto steady = two_streams();
  const json s = report::timeline_json(steady, analysis::analyze_dag(steady), 100)["window"];
  EXPECT_EQ(s["start_ns"], 0);
  EXPECT_EQ(s["end_ns"], s["trace_end_ns"]);
  EXPECT_TRUE(report::timeline_json(trace::Trace{}, analysis::DagResult{}, 100)["window"].is_null());
}

// The bars carry short names, unique among the timeline's; the full ones stay for hovering.
TEST(Timeline, BarsCarryShortNames) {
  const auto trace = trace::read_rocpd({source_dir() / "examples/traces/torch_two_streams_h100.db"});
  const json t = report::timeline_json(trace, analysis::analyze_dag(trace), 1000);
  ASSERT_EQ(t["short_names"].size(), t["names"].size());
  std::set<std::string> distinct;
  for (size_t i = 0; i < t["names"].size(); ++i) {
    const auto full = t["names"][i].get<std::string>(), short_name = t["short_names"][i].get<std::string>();
    EXPECT_LE(short_name.size(), full.size());
    EXPECT_LE(short_name.size(), 130u) << short_name;
    distinct.insert(short_name);
  }
  EXPECT_EQ(distinct.size(), t["names"].size());
}

}  // namespace
}  // namespace rpl::test
