// The CUPTI tracer's records, mapped into rocpd (DESIGN.md "NVIDIA trace mapping into rocpd") and
// read back by the same reader and analyses as AMD traces.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "cuda_trace_data.hpp"
#include "test_support.hpp"

namespace rpl::capture {
namespace {

CudaTraceData h100_trace() {
  CudaTraceData d;
  d.pid = 4242;
  d.hostname = "gpu-node";
  d.command = "./softmax_testbed 4096 4096 20";
  d.start_ns = 1'000'000;
  d.end_ns = 900'000'000;
  CudaDeviceInfo dev;
  dev.id = 0;
  dev.name = "NVIDIA H100 80GB HBM3";
  dev.cc_major = 9;
  dev.sm_count = 132;
  dev.max_threads_per_sm = 2048;
  dev.registers_per_sm = 65536;
  dev.shared_memory_per_sm = 233472;
  dev.clock_khz = 1980000;
  d.devices.push_back(dev);
  d.names = {"_Z15softmax_rowwisePKfPfii", "_Z4fillPff"};
  for (int i = 0; i < 20; ++i) {
    CudaKernelRecord k;
    k.start = 10'000'000 + i * 1'000'000ull;
    k.end = k.start + 400'000 + (i % 3) * 1000;
    k.stream = 7;
    k.correlation = 100 + i;
    k.grid[0] = 4096;
    k.block[0] = 256;
    k.static_shared = 1024;
    k.dynamic_shared = 2048;
    k.registers_per_thread = 40;
    k.name = 0;
    d.kernels.push_back(k);
  }
  CudaKernelRecord fill;
  fill.start = 5'000'000;
  fill.end = 5'100'000;
  fill.grid[0] = 1u << 20;   // 2^20 blocks of 8192 work-items: 2^33 in all, past 32 bits
  fill.block[0] = 1024;
  fill.block[1] = 8;
  fill.registers_per_thread = 8;
  fill.name = 1;
  fill.launch_type = 1;
  fill.graph_id = 3;
  d.kernels.push_back(fill);
  d.memcpys.push_back({1'000'000, 2'000'000, 64u << 20, 0, 7, 1, 1, 0});
  d.memsets.push_back({2'000'000, 2'100'000, 1u << 20, 0, 7, 2, 0, 0});
  d.syncs.push_back({40'000'000, 40'100'000, 4, 0, 200});
  d.dropped_records = 17;
  return d;
}

TEST(CudaTraceWriter, MapsRecordsOntoRocpd) {
  const auto path = test::fresh_dir("cuda") / "4242_results.db";
  write_cuda_trace(path, h100_trace());
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  auto t = trace::read_rocpd({path});
  ASSERT_EQ(t.agents.size(), 2u);
  const auto& gpu = t.agents[1];
  EXPECT_EQ(gpu.type, "GPU");
  EXPECT_EQ(gpu.name, "sm_90");
  EXPECT_EQ(gpu.vendor_name, "NVIDIA");
  EXPECT_EQ(gpu.product_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.compute_units, 132);
  EXPECT_EQ(gpu.wave_size, 32);
  EXPECT_EQ(gpu.max_clock_mhz, 1980.0);
  ASSERT_EQ(t.dispatches.size(), 21u);
  EXPECT_EQ(t.dispatches[0].id, 1);  // numbered in start order: the fill kernel came first
  EXPECT_EQ(t.symbols[t.dispatches[0].symbol].mangled_name, "_Z4fillPff");
  EXPECT_EQ(t.geometry(t.dispatches[0]).grid[0], uint64_t{1} << 30);
  EXPECT_EQ(t.geometry(t.dispatches[0]).grid[1], 8u);
  const auto& softmax = t.dispatches[1];
  const auto& symbol = t.symbols[softmax.symbol];
  EXPECT_EQ(symbol.display_name, "softmax_rowwise(float const*, float*, int, int)");
  EXPECT_EQ(symbol.arch_vgpr_count, 40);
  EXPECT_EQ(symbol.group_segment_size, 1024);
  EXPECT_EQ(t.geometry(softmax).group_segment_size, 3072u);  // static + dynamic
  EXPECT_EQ(t.geometry(softmax).grid[0], 4096u * 256u);       // work-items
  EXPECT_EQ(softmax.stream_id, 7);
  EXPECT_EQ(softmax.queue_id, 7);
  ASSERT_EQ(t.memory_copies.size(), 2u);
  EXPECT_EQ(t.memory_copies[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(t.memory_copies[0].src_agent_id, 0);
  EXPECT_EQ(t.memory_copies[0].dst_agent_id, 1);
  EXPECT_EQ(t.memory_copies[1].name, "MEMORY_SET");
  bool dropped_warned = false;
  for (const auto& w : t.warnings) dropped_warned |= w.find("dropped 17 activity records") != std::string::npos;
  EXPECT_TRUE(dropped_warned);
}

TEST(CudaTraceWriter, AnalyzesLikeAnAmdTrace) {
  const auto path = test::fresh_dir("cuda-summary") / "4242_results.db";
  write_cuda_trace(path, h100_trace());
  auto s = analysis::summarize_trace(trace::read_rocpd({path}), {});
  EXPECT_EQ(s.backend, "cuda");
  ASSERT_TRUE(s.kernel && s.gpu && s.occupancy && s.resources);
  EXPECT_EQ(s.kernel->mangled_name, "_Z15softmax_rowwisePKfPfii");
  EXPECT_EQ(s.kernel->dispatches, 20u);
  EXPECT_EQ(s.gpu->architecture, "sm_90");
  EXPECT_EQ(s.resources->vgpr_per_thread, 40);
  EXPECT_EQ(s.resources->dynamic_lds_bytes, 2048);
  EXPECT_EQ(s.occupancy->unit, "SM");
  // 40 registers: 1280 per warp -> 12 warps per sub-partition -> 48 warps -> 6 blocks of 8 warps.
  EXPECT_EQ(s.occupancy->active_workgroups_per_cu, 6);
  EXPECT_EQ(s.occupancy->limiter, "registers");
}

// A rank of a multi-rank job and the host are kept, for the per-rank view; a process without a
// rank has none.
TEST(CudaTraceWriter, TheRankAndTheHostReadBack) {
  const auto dir = test::fresh_dir("cuda-rank");
  auto ranked = h100_trace();
  ranked.rank = "3";
  write_cuda_trace(dir / "1_results.db", ranked);
  write_cuda_trace(dir / "2_results.db", h100_trace());
  const auto trace = trace::read_rocpd({dir / "1_results.db", dir / "2_results.db"});
  ASSERT_EQ(trace.sources.size(), 2u);
  EXPECT_EQ(trace.sources[0].rank, 3);
  EXPECT_EQ(trace.sources[0].host, "gpu-node");
  EXPECT_FALSE(trace.sources[1].rank.has_value());
  EXPECT_EQ(trace.sources[1].host, "gpu-node");
  EXPECT_FALSE(analysis::summarize_trace(trace, {}).ranks.has_value()) << "one rank is no job";
}

// Ranks 0 and 1 on one host and rank 2, whose dispatches take twice as long, on another: the
// dominant kernel's time on each, the slowest rank and how far it is over the mean; in the
// summary, profile.json (against its schema) and the text.
TEST(CudaTraceWriter, ARanksSlownessShows) {
  const auto dir = test::fresh_dir("cuda-ranks");
  std::vector<std::filesystem::path> dbs;
  for (int rank = 0; rank < 3; ++rank) {
    auto d = h100_trace();
    d.pid = 100 + rank;
    d.rank = std::to_string(rank);
    if (rank == 2) {
      d.hostname = "gpu-node-2";
      for (auto& k : d.kernels) k.end = k.start + 2 * (k.end - k.start);
    }
    dbs.push_back(dir / ("run1_" + std::to_string(100 + rank) + "_results.db"));
    write_cuda_trace(dbs.back(), d);
  }
  const auto s = analysis::summarize_trace(trace::read_rocpd(dbs), {});
  ASSERT_TRUE(s.ranks.has_value());
  ASSERT_EQ(s.ranks->ranks.size(), 3u);
  EXPECT_EQ(s.ranks->slowest_rank, 2);
  EXPECT_EQ(s.ranks->hosts, 2u);
  EXPECT_EQ(s.ranks->ranks[2].host, "gpu-node-2");
  EXPECT_DOUBLE_EQ(s.ranks->ranks[0].dispatches_per_run, 20);
  EXPECT_NEAR(s.ranks->ranks[2].per_run_ms, 2 * s.ranks->ranks[0].per_run_ms, 1e-9);
  EXPECT_NEAR(s.ranks->imbalance_pct, 50, 1e-6) << "2 over a mean of 4/3";
  std::vector<std::string> args = {"analyze"};
  for (const auto& db : dbs) args.push_back(db.string());
  const auto text = test::run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Ranks       3 ranks on 2 hosts: the kernel "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("slowest rank 2 (50.0 % over the mean)"), std::string::npos) << text.out;
  args.insert(args.begin() + 1, "--json");
  const auto doc = test::run_cli(args);
  ASSERT_EQ(doc.exit_code, 0) << doc.err;
  EXPECT_EQ(test::schema_errors(doc.out, "profile"), "");
  EXPECT_NE(doc.out.find("\"slowest_rank\": 2"), std::string::npos);
}

// The tracer hands over records as CUPTI fills its buffers: each batch carries only the names it
// saw first, and the process's end is known only when the writer finishes.
TEST(CudaTraceWriter, WritesBatchesAsTheyCome) {
  const CudaTraceData whole = h100_trace();
  const auto path = test::fresh_dir("cuda-batches") / "4242_results.db";
  CudaTraceData process = whole;
  process.end_ns = 0;
  CudaTraceWriter writer(path, process);
  CudaTraceData first;
  first.devices = whole.devices;
  first.names = {whole.names[0]};
  first.kernels.assign(whole.kernels.begin(), whole.kernels.begin() + 10);  // softmax only
  writer.add(first);
  CudaTraceData second;
  second.names = {whole.names[1]};
  second.kernels.assign(whole.kernels.begin() + 10, whole.kernels.end());  // softmax, then fill
  writer.add(second);
  EXPECT_FALSE(std::filesystem::exists(path));  // nothing in place until finished
  writer.finish(0, 777'000'000);

  auto t = trace::read_rocpd({path});
  ASSERT_EQ(t.dispatches.size(), 21u);
  std::map<std::string, int> per_name;
  for (const auto& d : t.dispatches) ++per_name[t.symbols[d.symbol].mangled_name];
  EXPECT_EQ(per_name["_Z15softmax_rowwisePKfPfii"], 20);
  EXPECT_EQ(per_name["_Z4fillPff"], 1);
  SQLite::Database db(path.string());
  EXPECT_EQ(db.execAndGet("SELECT end FROM rocpd_info_process").getInt64(), 777'000'000);
  EXPECT_EQ(db.execAndGet("SELECT fini FROM rocpd_info_process").getInt64(), 777'000'000);
  EXPECT_EQ(db.execAndGet("SELECT end FROM rocpd_info_thread").getInt64(), 777'000'000);
}

TEST(CudaTraceWriter, UnfinishedLeavesNoFile) {
  const auto dir = test::fresh_dir("cuda-unfinished");
  {
    CudaTraceWriter writer(dir / "1_results.db", h100_trace());
    writer.add(h100_trace());
    EXPECT_TRUE(std::filesystem::exists(dir / "1_results.db.tmp"));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(CudaTraceWriter, ArchNames) {
  EXPECT_EQ(sm_arch_name(9, 0), "sm_90");
  EXPECT_EQ(sm_arch_name(8, 6), "sm_86");
}

// cudaEventRecord on one stream and cudaStreamWaitEvent on another become event operations that
// the DAG joins: the recorded kernel, then the kernel enqueued after the wait.
TEST(CudaTraceWriter, EventRecordsAndWaitsBecomeDependencies) {
  CudaTraceData d = h100_trace();
  d.kernels.clear();
  d.memcpys.clear();
  d.memsets.clear();
  d.syncs.clear();
  auto kernel = [&](uint32_t stream, uint32_t correlation, uint64_t start, uint64_t end) {
    CudaKernelRecord k;
    k.start = start;
    k.end = end;
    k.stream = stream;
    k.correlation = correlation;
    k.registers_per_thread = 32;
    k.name = 0;
    d.kernels.push_back(k);
  };
  kernel(7, 10, 1'000'000, 3'000'000);                    // producer, stream 7
  d.events.push_back({7, 11, 500});                       // cudaEventRecord(e, s7)
  d.syncs.push_back({1'000'100, 1'000'200, 2, 8, 12, 500});  // cudaStreamWaitEvent(s8, e)
  kernel(8, 13, 3'000'500, 4'000'500);                    // consumer, stream 8
  kernel(9, 14, 1'000'000, 1'500'000);                    // independent, stream 9
  d.syncs.push_back({1'000'300, 4'000'600, 4, 0, 15, 0});    // cudaDeviceSynchronize
  const auto path = test::fresh_dir("cuda_events") / "4242_results.db";
  write_cuda_trace(path, d);
  auto t = trace::read_rocpd({path});
  ASSERT_EQ(t.event_operations.size(), 3u);
  std::map<trace::EventOperationKind, const trace::EventOperation*> by_kind;
  for (const auto& op : t.event_operations) by_kind[op.kind] = &op;
  ASSERT_TRUE(by_kind.count(trace::EventOperationKind::event_record));
  EXPECT_EQ(by_kind[trace::EventOperationKind::event_record]->event, 500);
  EXPECT_EQ(by_kind[trace::EventOperationKind::event_record]->stream_id, 7);
  ASSERT_TRUE(by_kind.count(trace::EventOperationKind::stream_wait_event));
  EXPECT_EQ(by_kind[trace::EventOperationKind::stream_wait_event]->stream_id, 8);
  EXPECT_EQ(by_kind[trace::EventOperationKind::stream_wait_event]->correlation_id, 12);
  EXPECT_TRUE(by_kind.count(trace::EventOperationKind::device_synchronize));
  std::set<int64_t> correlations;
  for (const auto& k : t.dispatches) correlations.insert(k.correlation_id);
  EXPECT_EQ(correlations, (std::set<int64_t>{10, 13, 14})) << "read from the dispatches' extdata";

  auto dag = analysis::analyze_dag(t);
  EXPECT_TRUE(dag.processes.at(0).dependencies_recorded);
  EXPECT_EQ(dag.edge_counts[static_cast<size_t>(analysis::EdgeKind::event)], 1u);
  EXPECT_EQ(dag.critical_path_ns, 2'000'000 + 1'000'000);
  ASSERT_EQ(dag.path.size(), 2u);  // producer, consumer (the synchronization after it adds no time)
  EXPECT_EQ(dag.path[1].via, analysis::EdgeKind::event);
}

// CUDA's legacy default stream (CUPTI stream flag 3) waits for the blocking streams (flag 1) of its
// context and holds back their later work; a non-blocking stream (flag 2) and another context's
// streams run past it. The kinds survive the database, and the DAG joins the work accordingly.
TEST(CudaTraceWriter, TheLegacyDefaultStreamSynchronizesWithBlockingStreams) {
  CudaTraceData d = h100_trace();
  d.kernels.clear();
  d.memcpys.clear();
  d.memsets.clear();
  d.syncs.clear();
  auto kernel = [&](uint32_t context, uint32_t stream, uint32_t correlation, uint64_t start, uint64_t end) {
    CudaKernelRecord k;
    k.start = start;
    k.end = end;
    k.context = context;
    k.stream = stream;
    k.correlation = correlation;
    k.registers_per_thread = 32;
    d.kernels.push_back(k);
  };
  d.streams = {{1, 7, 3}, {1, 13, 1}, {1, 14, 2}, {2, 20, 1}, {1, 99, 1}};  // 99: a blocking stream with no work
  kernel(1, 13, 1, 1'000'000, 2'000'000);  // A, blocking
  kernel(1, 7, 2, 2'000'100, 3'000'000);   // B, legacy: after A
  kernel(1, 13, 3, 3'000'100, 4'000'000);  // C, blocking: after B
  kernel(1, 14, 4, 1'000'000, 1'500'000);  // D, non-blocking: free
  kernel(2, 20, 5, 1'000'000, 1'500'000);  // F, another context: free
  kernel(1, 7, 6, 4'000'100, 4'500'000);   // E, legacy: after C
  const auto path = test::fresh_dir("cuda_legacy_stream") / "4242_results.db";
  write_cuda_trace(path, d);
  auto t = trace::read_rocpd({path});
  ASSERT_EQ(t.streams.size(), 5u);
  std::map<int64_t, trace::StreamSync> kinds;
  for (const auto& s : t.streams) kinds[s.stream_id] = s.sync;
  EXPECT_EQ(kinds[7], trace::StreamSync::legacy_default);
  EXPECT_EQ(kinds[13], trace::StreamSync::blocking);
  EXPECT_EQ(kinds[14], trace::StreamSync::non_blocking);

  auto dag = analysis::analyze_dag(t);
  EXPECT_TRUE(dag.processes.at(0).dependencies_recorded) << "stream kinds are recorded dependencies";
  std::set<std::pair<int64_t, int64_t>> legacy;  // (from, to) by correlation id
  for (const auto& e : dag.cross_edges) {
    ASSERT_EQ(e.kind, analysis::EdgeKind::legacy_stream);
    legacy.emplace(t.dispatches[e.from.index].correlation_id, t.dispatches[e.to.index].correlation_id);
  }
  EXPECT_EQ(legacy, (std::set<std::pair<int64_t, int64_t>>{{1, 2}, {2, 3}, {3, 6}}));
  std::vector<int64_t> critical;
  for (const auto& step : dag.path) critical.push_back(t.dispatches[step.node.index].correlation_id);
  EXPECT_EQ(critical, (std::vector<int64_t>{1, 2, 3, 6}));  // A, B, C, E
  EXPECT_EQ(dag.critical_path_ns, 1'000'000 + 999'900 + 999'900 + 499'900);
}

// A CUDA Graph (a diamond A -> B, A -> C, B -> D, C -> D) launched twice, as CUPTI reports it on an
// H100 (tests/gpu/programs/graph_probe.cu): the kernels of a launch share its correlation id and
// name their node of the instantiated graph; C runs on another stream. The graph's edges join each
// launch's kernels, and the long branch C is on the critical path.
TEST(CudaTraceWriter, GraphEdgesJoinEachLaunch) {
  CudaTraceData d = h100_trace();
  d.kernels.clear();
  d.memcpys.clear();
  d.memsets.clear();
  d.syncs.clear();
  const uint64_t a = 8589934592, b = a + 1, c = a + 2, dd = a + 3;  // graph 2's nodes
  // Graph 1 is the one instantiated; CUPTI reported A -> C of graph 2 twice on the H100.
  d.graph_dependencies = {{1, 11, 12}, {2, a, b}, {2, a, c}, {2, b, dd}, {2, c, dd}, {2, a, c}};
  auto node = [&](uint32_t stream, uint32_t launch, uint64_t id, uint64_t start, uint64_t end) {
    CudaKernelRecord k;
    k.start = start;
    k.end = end;
    k.stream = stream;
    k.correlation = launch;
    k.graph_id = 2;
    k.graph_node_id = id;
    k.registers_per_thread = 32;
    d.kernels.push_back(k);
  };
  for (uint32_t launch = 1; launch <= 2; ++launch) {
    const uint64_t t0 = launch * 10'000'000;
    node(13, launch, a, t0, t0 + 1'000'000);
    node(13, launch, b, t0 + 1'000'100, t0 + 1'500'000);
    node(16, launch, c, t0 + 1'000'200, t0 + 4'000'000);
    node(13, launch, dd, t0 + 4'000'100, t0 + 5'000'000);
  }
  const auto path = test::fresh_dir("cuda_graph") / "4242_results.db";
  write_cuda_trace(path, d);
  auto t = trace::read_rocpd({path});
  EXPECT_EQ(t.graph_dependencies.size(), 6u);
  EXPECT_EQ(t.graph_nodes.size(), 8u);

  auto dag = analysis::analyze_dag(t);
  EXPECT_TRUE(dag.processes.at(0).dependencies_recorded);
  EXPECT_EQ(dag.edge_counts[static_cast<size_t>(analysis::EdgeKind::graph)], 8u);  // four per launch
  std::vector<uint64_t> critical;
  for (const auto& step : dag.path) {
    for (const auto& n : t.graph_nodes) {
      if (!n.copy && n.index == step.node.index) critical.push_back(n.node);
    }
  }
  // Each launch's A, C, D; the second launch follows the first on stream 13.
  EXPECT_EQ(critical, (std::vector<uint64_t>{a, c, dd, a, c, dd}));
}

// A graph whose nodes are a memset, a kernel and a copy (M -> K -> C, M -> C), launched once: the
// memset and copy name their graph node as the kernel does, and the graph's edges join all three.
TEST(CudaTraceWriter, GraphCopyAndMemsetNodesJoinTheLaunch) {
  CudaTraceData d = h100_trace();
  d.kernels.clear();
  d.memcpys.clear();
  d.memsets.clear();
  d.syncs.clear();
  const uint64_t m = 42, k = 43, c = 44;
  d.graph_dependencies = {{3, m, k}, {3, k, c}, {3, m, c}};
  CudaMemsetRecord set;
  set.start = 1'000'000;
  set.end = 1'100'000;
  set.bytes = 1 << 20;
  set.stream = 13;
  set.correlation = 7;
  set.graph_id = 3;
  set.graph_node_id = m;
  d.memsets.push_back(set);
  CudaKernelRecord kernel;
  kernel.start = 1'200'000;
  kernel.end = 2'200'000;
  kernel.stream = 13;
  kernel.correlation = 7;
  kernel.graph_id = 3;
  kernel.graph_node_id = k;
  d.kernels.push_back(kernel);
  CudaMemcpyRecord copy;
  copy.start = 2'300'000;
  copy.end = 2'500'000;
  copy.bytes = 1 << 20;
  copy.copy_kind = 8;  // device to device
  copy.stream = 14;    // another stream: only the graph's edges order it
  copy.correlation = 7;
  copy.graph_id = 3;
  copy.graph_node_id = c;
  d.memcpys.push_back(copy);
  const auto path = test::fresh_dir("cuda_graph_copies") / "4242_results.db";
  write_cuda_trace(path, d);
  auto t = trace::read_rocpd({path});
  ASSERT_EQ(t.graph_nodes.size(), 3u);
  size_t copies = 0;
  for (const auto& n : t.graph_nodes) copies += n.copy;
  EXPECT_EQ(copies, 2u);

  auto dag = analysis::analyze_dag(t);
  EXPECT_EQ(dag.edge_counts[static_cast<size_t>(analysis::EdgeKind::graph)], 3u);
  EXPECT_EQ(dag.edge_counts[static_cast<size_t>(analysis::EdgeKind::inferred)], 0u);
  ASSERT_EQ(dag.path.size(), 3u);
  EXPECT_EQ(dag.path[0].node.kind, analysis::DagNode::Kind::copy);
  EXPECT_EQ(dag.path[1].node.kind, analysis::DagNode::Kind::dispatch);
  EXPECT_EQ(dag.path[2].node.kind, analysis::DagNode::Kind::copy);
  EXPECT_EQ(dag.path[2].via, analysis::EdgeKind::graph);
  EXPECT_EQ(dag.critical_path_ns, 100'000 + 1'000'000 + 200'000);
}

}  // namespace
}  // namespace rpl::capture
