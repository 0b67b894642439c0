// The tracer's edge calls (cupti_edges.cpp follows them with CUPTI callbacks) become the records
// CUPTI's SYNCHRONIZATION and CUDA_EVENT activities gave before: the same rows in rocpd, the same
// edges in the DAG.
#include <gtest/gtest.h>

#include <map>

#include <rpl/analysis/dag.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "cuda_trace_data.hpp"
#include "edge_recorder.hpp"
#include "test_support.hpp"

namespace rpl::capture {
namespace {

EdgeCall call(EdgeCallKind kind, uint64_t event, uint32_t stream, uint32_t correlation) {
  EdgeCall c;
  c.kind = kind;
  c.event = event;
  c.stream = stream;
  c.correlation = correlation;
  c.start = correlation * 1000;
  c.end = c.start + 100;
  return c;
}

TEST(EdgeRecorder, EachRecordingIsNumberedAndAWaitNamesTheLatest) {
  EdgeRecorder r;
  CudaTraceData out;
  r.add(call(EdgeCallKind::event_record, 0xe1, 7, 10), out);
  r.add(call(EdgeCallKind::stream_wait_event, 0xe1, 8, 11), out);
  r.add(call(EdgeCallKind::event_record, 0xe1, 9, 12), out);  // the same event again, elsewhere
  r.add(call(EdgeCallKind::event_synchronize, 0xe1, kNoStream, 13), out);
  r.add(call(EdgeCallKind::stream_synchronize, 0, 8, 14), out);
  r.add(call(EdgeCallKind::context_synchronize, 0, kNoStream, 15), out);
  r.add(call(EdgeCallKind::event_destroy, 0xe1, kNoStream, 16), out);
  r.add(call(EdgeCallKind::stream_wait_event, 0xe1, 8, 17), out);  // the handle, destroyed: no recording
  ASSERT_EQ(out.events.size(), 2u);
  EXPECT_EQ(out.events[0].stream, 7u);
  EXPECT_EQ(out.events[1].stream, 9u);
  EXPECT_NE(out.events[0].event_sync_id, out.events[1].event_sync_id);
  ASSERT_EQ(out.syncs.size(), 5u);
  // CUpti_ActivitySynchronizationType: 2 wait, 1 event sync, 3 stream sync, 4 context sync.
  EXPECT_EQ(out.syncs[0].type, 2u);
  EXPECT_EQ(out.syncs[0].stream, 8u);
  EXPECT_EQ(out.syncs[0].event_sync_id, out.events[0].event_sync_id);
  EXPECT_EQ(out.syncs[0].correlation, 11u);
  EXPECT_EQ(out.syncs[0].start, 11'000u);
  EXPECT_EQ(out.syncs[0].end, 11'100u);
  EXPECT_EQ(out.syncs[1].type, 1u);
  EXPECT_EQ(out.syncs[1].event_sync_id, out.events[1].event_sync_id) << "the latest recording";
  EXPECT_EQ(out.syncs[2].type, 3u);
  EXPECT_EQ(out.syncs[2].stream, 8u);
  EXPECT_EQ(out.syncs[3].type, 4u);
  EXPECT_EQ(out.syncs[4].event_sync_id, kNoRecording);
}

// Two streams joined by an event each round, as PyTorch's side streams are: the records the calls
// make give the DAG one event edge per round and the critical path through both streams.
TEST(EdgeRecorder, CallsGiveTheDagItsEventEdges) {
  CudaTraceData d;
  d.pid = 7;
  d.hostname = "node";
  d.start_ns = 1'000;
  d.end_ns = 100'000'000;
  d.trace_level = "default";
  CudaDeviceInfo dev;
  dev.name = "NVIDIA H100 80GB HBM3";
  dev.cc_major = 9;
  dev.sm_count = 132;
  d.devices.push_back(dev);
  d.names = {"_Z8producerv", "_Z8consumerv"};
  auto kernel = [&](uint32_t name, uint32_t stream, uint32_t correlation, uint64_t start, uint64_t end) {
    CudaKernelRecord k;
    k.start = start;
    k.end = end;
    k.stream = stream;
    k.correlation = correlation;
    k.name = name;
    d.kernels.push_back(k);
  };
  EdgeRecorder r;
  for (uint32_t round = 0; round < 3; ++round) {
    const uint32_t c = 100 * (round + 1);
    const uint64_t t = 10'000'000ull * (round + 1);
    kernel(0, 13, c, t, t + 2'000'000);                      // produce on the side stream
    r.add(call(EdgeCallKind::event_record, 0xabc, 13, c + 1), d);
    r.add(call(EdgeCallKind::stream_wait_event, 0xabc, 7, c + 2), d);
    kernel(1, 7, c + 3, t + 2'000'100, t + 3'000'000);        // consume on the main stream
  }
  r.add(call(EdgeCallKind::context_synchronize, 0, kNoStream, 900), d);
  const auto path = test::fresh_dir("edge_recorder") / "7_results.db";
  write_cuda_trace(path, d);
  const auto t = trace::read_rocpd({path});
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].trace_level, "default");
  const auto dag = analysis::analyze_dag(t);
  EXPECT_TRUE(dag.processes.at(0).dependencies_recorded);
  EXPECT_EQ(dag.edge_counts[static_cast<size_t>(analysis::EdgeKind::event)], 3u);
  EXPECT_EQ(dag.edge_counts[static_cast<size_t>(analysis::EdgeKind::inferred)], 0u);
  EXPECT_TRUE(dag.warnings.empty()) << dag.warnings.front();
}

// Level full keeps every host call as a region, with its correlation id and thread.
TEST(EdgeRecorder, HostCallsOfLevelFullAreRegions) {
  CudaTraceData d;
  d.pid = 8;
  d.hostname = "node";
  d.start_ns = 1'000;
  d.trace_level = "full";
  d.api_calls.push_back({2'000, 3'000, 41, 1234, "cudaLaunchKernel"});
  d.api_calls.push_back({4'000, 4'500, 42, 1234, "cuMemAlloc_v2"});
  const auto path = test::fresh_dir("api_calls") / "8_results.db";
  write_cuda_trace(path, d);
  trace::ReadOptions options;
  options.host_calls = true;
  const auto t = trace::read_rocpd({path}, options);
  ASSERT_EQ(t.host_calls.size(), 2u);
  std::map<std::string, int64_t> duration;
  for (const auto& c : t.host_calls) duration[t.host_call_names[c.name]] = c.end_ns - c.start_ns;
  EXPECT_EQ(duration["cudaLaunchKernel"], 1'000);
  EXPECT_EQ(duration["cuMemAlloc_v2"], 500);
  EXPECT_EQ(t.sources[0].trace_level, "full");
}

}  // namespace
}  // namespace rpl::capture
