// Event records and waits read from rocprofv3's HIP API trace (tests/fixtures/rocpd_v3_hip_api.sql
// describes the program).
#include <gtest/gtest.h>

#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"

namespace rpl::trace {
namespace {

constexpr const char* kSuffix = "_0000abcd_1111_7222_8333_444455556666";

std::filesystem::path hip_database(const std::string& name, const std::string& change_sql = "") {
  return test::database_from_sql("rocpd_v3_hip_api.sql", test::fresh_dir(name), change_sql);
}

std::string table(const std::string& base) { return "rocpd_" + base + kSuffix; }

TEST(RocpdHipApi, CallsBecomeEventOperationsOnTheStreamsTheirHandlesLaunchedOn) {
  const Trace t = read_rocpd({hip_database("hip_api")});
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
  ASSERT_EQ(t.dispatches.size(), 5u);
  for (const auto& d : t.dispatches) EXPECT_NE(d.correlation_id, 0) << "dispatches are ordered by correlation id";
  ASSERT_EQ(t.event_operations.size(), 8u);  // hipStreamCreate and the launches are not among them
  using K = EventOperationKind;
  struct Expected {
    K kind;
    int64_t correlation_id, stream_id;
  };
  const std::vector<Expected> expected = {
      {K::event_record, 3, 1},      {K::stream_wait_event, 5, 2}, {K::event_record, 8, 2},
      {K::event_synchronize, 9, 0}, {K::event_record, 11, 2},     {K::stream_wait_event, 12, 1},
      {K::stream_wait_event, 13, 1}, {K::device_synchronize, 15, 0}};
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& op = t.event_operations[i];
    EXPECT_EQ(op.kind, expected[i].kind) << i;
    EXPECT_EQ(op.correlation_id, expected[i].correlation_id) << i;
    if (op.kind != K::event_synchronize && op.kind != K::device_synchronize) {
      EXPECT_EQ(op.stream_id, expected[i].stream_id) << i;
    }
    EXPECT_EQ(op.guid, "0000abcd-1111-7222-8333-444455556666");
  }
  const auto& ops = t.event_operations;
  EXPECT_EQ(ops[1].event, ops[0].event) << "the wait names e1's first recording";
  EXPECT_EQ(ops[3].event, ops[2].event) << "the host waits for e2's recording";
  EXPECT_EQ(ops[5].event, ops[4].event) << "after e1 was recorded again, a wait names the new recording";
  EXPECT_NE(ops[4].event, ops[0].event);
  for (size_t i : {0u, 2u, 4u}) EXPECT_NE(ops[6].event, ops[i].event) << "e3 was never recorded";
  EXPECT_EQ(ops[3].start_ns, 1400);
  EXPECT_EQ(ops[3].end_ns, 132000);
}

TEST(RocpdHipApi, NullStreamHandleIsStreamZero) {
  // finish was launched with the null stream ("0"); a record on it with "(nil)" is the same stream.
  const Trace t = read_rocpd({hip_database(
      "hip_api_null", "UPDATE " + table("arg") + " SET value = '(nil)' WHERE id = 13")});
  ASSERT_EQ(t.event_operations.size(), 8u);
  EXPECT_EQ(t.event_operations[2].stream_id, 0);
}

TEST(RocpdHipApi, RecordOnAStreamThatRanNothingNamesNoTracedStream) {
  const Trace t = read_rocpd({hip_database(
      "hip_api_unused", "UPDATE " + table("arg") + " SET value = '0x55d0c0a09000' WHERE id = 5")});
  ASSERT_EQ(t.event_operations.size(), 8u);
  EXPECT_LT(t.event_operations[0].stream_id, 0);
}

TEST(RocpdHipApi, ArgumentExtdataStreamIdIsTakenAsGiven) {
  const Trace t = read_rocpd({hip_database(
      "hip_api_extdata", "UPDATE " + table("arg") + " SET extdata = '{\"stream_id\": 7}' WHERE id = 5")});
  EXPECT_EQ(t.event_operations.at(0).stream_id, 7);
}

TEST(RocpdHipApi, CallsWithoutTheirArgumentsAddNothingAndDoNotFail) {
  // An event record or wait whose event argument is missing is skipped; the synchronizations stay.
  const Trace t = read_rocpd({hip_database("hip_api_no_args", "DELETE FROM " + table("arg"))});
  ASSERT_EQ(t.event_operations.size(), 1u);
  EXPECT_EQ(t.event_operations[0].kind, EventOperationKind::device_synchronize);
  EXPECT_EQ(t.dispatches.size(), 5u);
}

TEST(RocpdHipApi, ArgumentTableOfAnotherShapeIsIgnored) {
  const Trace t = read_rocpd({hip_database("hip_api_other_args", "DROP TABLE " + table("arg") + "; CREATE TABLE " +
                                                                     table("arg") + " (id INTEGER PRIMARY KEY, note TEXT)")});
  EXPECT_TRUE(t.event_operations.empty());
  EXPECT_EQ(t.dispatches.size(), 5u);
}

TEST(RocpdHipApi, TraceWithoutHipCallsReadsAsBefore) {
  const Trace t = read_rocpd({hip_database("hip_api_none", "DELETE FROM " + table("region"))});
  EXPECT_TRUE(t.event_operations.empty());
  for (const auto& d : t.dispatches) EXPECT_EQ(d.correlation_id, 0) << "unordered traces are not asked for correlation ids";
}

TEST(RocpdHipApi, ProcessesMergedIntoOneFileKeepTheirOwnHandlesAndCorrelationIds) {
  // A second process in the same tables: its call 2 launched on the same handle as the first
  // process's call 2, but that handle is its stream 9.
  const std::string g = "'22222222-3333-7444-8555-666666666666'";
  const Trace t = read_rocpd({hip_database(
      "hip_api_two_processes",
      "INSERT INTO " + table("info_agent") + " (id, guid, nid, pid, type, name, extdata) VALUES (3, " + g +
          ", 7, 5252, 'GPU', 'gfx942', '{}');"
          "INSERT INTO " + table("info_kernel_symbol") + " (id, guid, nid, pid, code_object_id, kernel_name, display_name) VALUES (6, " +
          g + ", 7, 5252, 1, '_Z7producePf', 'produce(float*)');"
          "INSERT INTO " + table("event") + " (id, guid, category_id, stack_id) VALUES (301, " + g + ", 3, 2), (302, " + g +
          ", 3, 3), (401, " + g + ", 1, 2);"
          "INSERT INTO " + table("region") + " (id, guid, nid, pid, tid, start, end, name_id, event_id) VALUES (1002, " + g +
          ", 7, 5252, 5252, 300, 400, 4, 301), (1003, " + g + ", 7, 5252, 5252, 500, 550, 5, 302);"
          "INSERT INTO " + table("arg") + " (id, guid, event_id, position, type, name, value) VALUES (101, " + g +
          ", 301, 5, 'ihipStream_t*', 'stream', '0x55d0c0a01000'), (102, " + g +
          ", 302, 0, 'ihipEvent_t*', 'event', '0x55d0c0b00100'), (103, " + g + ", 302, 1, 'ihipStream_t*', 'stream', '0x55d0c0a01000');"
          "INSERT INTO " + table("kernel_dispatch") +
          " (id, guid, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, end, workgroup_size_x, "
          "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) VALUES (6, " + g +
          ", 7, 5252, 5252, 3, 6, 6, 1, 9, 1000, 2000, 256, 1, 1, 256, 1, 1, 401);")});
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
  ASSERT_EQ(t.event_operations.size(), 9u);
  size_t second = 0;
  for (const auto& op : t.event_operations) {
    if (op.guid != "22222222-3333-7444-8555-666666666666") continue;
    ++second;
    EXPECT_EQ(op.kind, EventOperationKind::event_record);
    EXPECT_EQ(op.stream_id, 9);
    EXPECT_EQ(op.correlation_id, 3);
  }
  EXPECT_EQ(second, 1u);
  EXPECT_EQ(t.event_operations[0].stream_id, 1) << "the first process's record is still on its stream 1";
}

TEST(RocpdHipApi, HostCallsAreReadOnlyWhenAsked) {
  const auto db = hip_database("hip_api_calls");
  EXPECT_TRUE(read_rocpd({db}).host_calls.empty());
  ReadOptions options;
  options.host_calls = true;
  const Trace t = read_rocpd({db}, options);
  ASSERT_EQ(t.host_calls.size(), 15u);
  const auto& sync = t.host_calls[8];
  EXPECT_EQ(t.host_call_names.at(sync.name), "hipEventSynchronize");
  EXPECT_EQ(sync.start_ns, 1400);
  EXPECT_EQ(sync.end_ns, 132000);
  EXPECT_EQ(sync.tid, 4242);
  EXPECT_EQ(sync.guid, "0000abcd-1111-7222-8333-444455556666");
  EXPECT_EQ(t.host_call_names.size(), 7u) << "names are kept once";
}

}  // namespace
}  // namespace rpl::trace
