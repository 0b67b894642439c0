// The Nsight Systems export reader: a real trace of a PyTorch program on an H100 (rocm-perf's own
// CUPTI tracer, examples/traces) written as the exports of nsys 2022.4 and 2025.5 lay it out
// (tools/nsys_export_file) reads back as that trace; waits of exports that name the event only;
// bad input.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/error.hpp>
#include <rpl/trace/nsys_reader.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "nsys_export_file.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

const fs::path kTwoStreams = source_dir() / "examples/traces/torch_two_streams_h100.db";

class NsysExport : public ::testing::TestWithParam<tools::NsysRelease> {};

TEST_P(NsysExport, ReadsBackAsTheTraceItWasWrittenFrom) {
  const auto dir = fresh_dir("nsys_readback");
  const auto original = trace::read_rocpd({kTwoStreams});
  tools::write_nsys_export(original, dir / "report1.sqlite", 4242, GetParam());
  ASSERT_EQ(trace::trace_format(dir / "report1.sqlite"), trace::TraceFormat::nsys_sqlite);
  ASSERT_EQ(trace::trace_format(kTwoStreams), trace::TraceFormat::rocpd) << "rocm-perf's own databases stay rocpd";
  const auto t = trace::read_traces({dir / "report1.sqlite"});
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].guids, std::vector<std::string>{"4242"}) << "a process is its pid";
  ASSERT_EQ(t.dispatches.size(), original.dispatches.size());
  for (size_t i = 0; i < t.dispatches.size(); ++i) {
    const auto &a = t.dispatches[i], &b = original.dispatches[i];
    EXPECT_EQ(a.start_ns, b.start_ns);
    EXPECT_EQ(a.end_ns, b.end_ns);
    EXPECT_EQ(a.stream_id, b.stream_id);
    EXPECT_EQ(a.correlation_id, b.correlation_id);
    EXPECT_EQ(t.geometry(a), original.geometry(b)) << i;
    const auto &sa = t.symbols[static_cast<size_t>(a.symbol)], &sb = original.symbols[static_cast<size_t>(b.symbol)];
    EXPECT_EQ(sa.mangled_name, sb.mangled_name);
    EXPECT_EQ(sa.name(), sb.name());
    EXPECT_EQ(sa.arch_vgpr_count, sb.arch_vgpr_count);
    EXPECT_EQ(sa.group_segment_size, sb.group_segment_size);
    const auto& agent = t.agents.at(static_cast<size_t>(a.agent));
    EXPECT_EQ(agent.id, original.agents.at(static_cast<size_t>(b.agent)).id);
  }
  const auto& gpu = t.agents.at(static_cast<size_t>(t.dispatches[0].agent));
  EXPECT_EQ(gpu.name, "sm_90");
  EXPECT_EQ(gpu.vendor_name, "NVIDIA");
  EXPECT_EQ(gpu.product_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.compute_units, 132);
  EXPECT_EQ(gpu.wave_size, 32);
  EXPECT_DOUBLE_EQ(gpu.max_clock_mhz.value_or(0), 1980);
  ASSERT_EQ(t.memory_copies.size(), original.memory_copies.size());
  for (size_t i = 0; i < t.memory_copies.size(); ++i) {
    EXPECT_EQ(t.memory_copies[i].name, original.memory_copies[i].name);
    EXPECT_EQ(t.memory_copies[i].size, original.memory_copies[i].size);
    EXPECT_EQ(t.memory_copies[i].src_agent_id, original.memory_copies[i].src_agent_id);
    EXPECT_EQ(t.memory_copies[i].dst_agent_id, original.memory_copies[i].dst_agent_id);
  }
  // Every wait names the recording it waited for, with eventSyncId (2025.5) or without (2022.4).
  ASSERT_EQ(t.event_operations.size(), original.event_operations.size());
  size_t records = 0, waits = 0;
  for (const auto& op : t.event_operations) {
    records += op.kind == trace::EventOperationKind::event_record;
    waits += op.kind == trace::EventOperationKind::stream_wait_event;
  }
  EXPECT_EQ(records, 10u);
  EXPECT_EQ(waits, 10u);
  // Each wait waits for the same record (by its call) as in the trace it was written from.
  const auto record_waited = [](const trace::Trace& tr) {
    std::map<int64_t, int64_t> record_call, out;  // recording -> its call; wait's call -> its record's call
    for (const auto& op : tr.event_operations) {
      if (op.kind == trace::EventOperationKind::event_record) record_call[op.event] = op.correlation_id;
    }
    for (const auto& op : tr.event_operations) {
      if (op.kind == trace::EventOperationKind::stream_wait_event) out[op.correlation_id] = record_call.at(op.event);
    }
    return out;
  };
  EXPECT_EQ(record_waited(t), record_waited(original));
  ASSERT_EQ(t.streams.size(), original.streams.size());
  for (size_t i = 0; i < t.streams.size(); ++i) EXPECT_EQ(t.streams[i].sync, original.streams[i].sync);
}

INSTANTIATE_TEST_SUITE_P(Releases, NsysExport, ::testing::Values(tools::NsysRelease::v2022_4, tools::NsysRelease::v2025_5),
                         [](const auto& info) { return info.param == tools::NsysRelease::v2022_4 ? std::string("v2022_4") : std::string("v2025_5"); });

// An export before schema 3.24 (nsys 2023.3's columns) names the event a wait waits for, not the
// recording, and numbers syncType its own way: a re-recorded event is waited for at its latest
// recording before the wait, in the process's call order; what kind of wait a row is, its call says
// (else the old numbering: 1 a device synchronization, as a real export has cudaProfilerStop's).
// Unified memory migrations are no stream work.
TEST(Nsys, AnExportBeforeSchema324IsReadByItsCallsAndOldNumbering) {
  const auto dir = fresh_dir("nsys_recordings");
  const auto file = dir / "old.sqlite";
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("INSERT INTO StringIds VALUES (1, 'cudaEventRecord_v3020'), (2, 'cudaStreamWaitEvent_v3020'), (3, 'cudaDeviceSynchronize_v3020'), (4, 'cudaProfilerStop_v4000')");
    db.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, eventId INTEGER)");
    db.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER, "
            "correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId INTEGER)");
    db.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER, correlationId INTEGER, "
            "nameId INTEGER, returnValue INTEGER, callchainId INTEGER)");
    db.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER, streamId INTEGER, "
            "correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, "
            "srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER)");
    const int64_t pid = (int64_t{1} << 56) | (int64_t{77} << 24), tid = pid | 77;
    // Event 5 recorded on stream 1 at calls 10 and 30; stream 2 waits for it at calls 20 and 40 (rows out of call order).
    db.exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 1, 30, {0}, 5), (0, 1, 1, 10, {0}, 5)", pid));
    db.exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (400, 401, 0, 1, 2, 40, {0}, 0, 5), (200, 201, 0, 1, 2, 20, {0}, 0, 5), "
                        "(500, 600, 0, 1, 4294967295, 50, {0}, 1, 4294967295), (700, 800, 0, 1, 4294967295, 60, {0}, 1, 4294967295)", pid));
    db.exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 101, 0, {0}, 10, 1, 0, NULL), (300, 301, 0, {0}, 30, 1, 0, NULL), "
                        "(200, 201, 0, {0}, 20, 2, 0, NULL), (400, 401, 0, {0}, 40, 2, 0, NULL), (500, 600, 0, {0}, 50, 3, 0, NULL), "
                        "(700, 800, 0, {0}, 60, 4, 0, NULL)", tid));
    db.exec(fmt::format("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (900, 950, 0, 1, 0, 0, {0}, 4096, 11, NULL, 7, 7, 0, 0, 0, 0, 2, NULL, NULL)", pid));
  }
  const auto t = trace::read_traces({file});
  std::map<int64_t, const trace::EventOperation*> at;  // by call
  for (const auto& op : t.event_operations) at[op.correlation_id] = &op;
  ASSERT_EQ(at.size(), 6u);
  EXPECT_EQ(at[20]->kind, trace::EventOperationKind::stream_wait_event) << "syncType 0: its call says what it is";
  EXPECT_EQ(at[20]->event, at[10]->event);
  EXPECT_EQ(at[40]->event, at[30]->event);
  EXPECT_NE(at[10]->event, at[30]->event);
  EXPECT_EQ(at[50]->kind, trace::EventOperationKind::device_synchronize);
  EXPECT_EQ(at[60]->kind, trace::EventOperationKind::device_synchronize) << "cudaProfilerStop's synchronization: old syncType 1";
  EXPECT_TRUE(t.memory_copies.empty());
  const auto said = [&](const std::string& what) {
    return std::any_of(t.warnings.begin(), t.warnings.end(), [&](const std::string& w) { return w.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(said("1 unified memory migrations are page moves on no stream"));
  EXPECT_TRUE(said("without CUDA kernels (was the program profiled with --trace=cuda?)"));
}

TEST(Nsys, AKernelTableWithoutAColumnItNeedsIsRefusedInOneLine) {
  const auto dir = fresh_dir("nsys_bad");
  const auto file = dir / "cut.sqlite";
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, demangledName INTEGER)");
  }
  std::string message;
  EXPECT_EQ(error_code_of([&] { trace::read_traces({file}); }, &message), Errc::bad_input);
  EXPECT_EQ(message, file.string() + ": table CUPTI_ACTIVITY_KIND_KERNEL has no column \"gridX\"; not an Nsight Systems export this reader knows");
  // A SQLite file of neither kind is read as rocpd, whose reader says what it lacks.
  const auto other = dir / "other.sqlite";
  {
    SQLite::Database db(other.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE notes (text TEXT)");
  }
  EXPECT_EQ(trace::trace_format(other), trace::TraceFormat::rocpd);
  EXPECT_EQ(error_code_of([&] { trace::read_traces({other}); }, &message), Errc::bad_input);
}

}  // namespace
}  // namespace rpl::test
