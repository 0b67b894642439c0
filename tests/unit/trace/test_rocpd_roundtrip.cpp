// The writer's databases read back as what was written, across scenarios, files and processes.
#include <set>

#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_writer.hpp>

#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::trace {
namespace {

const KernelSymbol& symbol_named(const Trace& t, const std::string& mangled) {
  for (const auto& s : t.symbols) {
    if (s.mangled_name == mangled) return s;
  }
  throw std::runtime_error("no symbol " + mangled);
}

TEST(RocpdRoundTrip, Mi300xRunReadsBackEveryTable) {
  const auto dir = test::fresh_dir("mi300x");
  Trace t = read_rocpd({test::scenario("mi300x", 1, dir)});
  ASSERT_EQ(t.sources.size(), 1u);
  ASSERT_EQ(t.sources[0].guids.size(), 1u);
  EXPECT_EQ(t.agents.size(), 2u);
  EXPECT_EQ(t.symbols.size(), 4u);
  EXPECT_EQ(t.dispatches.size(), 12u + 40u + 30u + 20u);
  ASSERT_EQ(t.memory_copies.size(), 1u);
  EXPECT_EQ(t.memory_copies[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(t.memory_copies[0].size, 64 << 20);
  EXPECT_TRUE(t.warnings.empty());

  const Agent* gpu = nullptr;
  for (const auto& a : t.agents) {
    if (a.type == "GPU") gpu = &a;
  }
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->name, "gfx942");
  EXPECT_EQ(gpu->product_name, "AMD Instinct MI300X");
  EXPECT_EQ(gpu->compute_units, 304);
  EXPECT_EQ(gpu->wave_size, 64);
  EXPECT_EQ(gpu->max_clock_mhz, 2100);

  const auto& matmul = symbol_named(t, "_Z13matmul_kernelPKfS0_Pfiii");
  EXPECT_EQ(matmul.display_name, "matmul_kernel(float const*, float const*, float*, int, int, int)");
  EXPECT_EQ(matmul.arch_vgpr_count, 128);
  EXPECT_EQ(matmul.sgpr_count, 48);
  EXPECT_EQ(matmul.group_segment_size, 16384);

  std::set<int64_t> queues;
  for (const auto& d : t.dispatches) {
    ASSERT_GE(d.symbol, 0);
    ASSERT_GE(d.agent, 0);
    EXPECT_EQ(t.agents[d.agent].name, "gfx942");
    EXPECT_GE(d.end_ns, d.start_ns);
    queues.insert(d.queue_id);
    if (t.symbols[d.symbol].mangled_name == matmul.mangled_name) {
      EXPECT_EQ(t.geometry(d).workgroup, (std::array<uint32_t, 3>{256, 1, 1}));
      EXPECT_EQ(t.geometry(d).grid, (std::array<uint64_t, 3>{65536, 64, 1}));
      EXPECT_EQ(t.geometry(d).group_segment_size, 24576u);
    }
  }
  EXPECT_EQ(queues, (std::set<int64_t>{1, 2}));
  EXPECT_EQ(t.geometries.size(), 4u) << "one launch geometry per kernel of the scenario";
}

TEST(RocpdRoundTrip, SeveralFilesBecomeSeveralSourcesWithTheirOwnGuids) {
  const auto dir = test::fresh_dir("runs");
  Trace t = read_rocpd({test::scenario("mi300x", 1, dir), test::scenario("mi300x", 2, dir), test::scenario("mi300x", 3, dir)});
  ASSERT_EQ(t.sources.size(), 3u);
  std::set<std::string> guids;
  for (const auto& s : t.sources) guids.insert(s.guids.at(0));
  EXPECT_EQ(guids.size(), 3u);
  EXPECT_EQ(t.dispatches.size(), 3u * 102u);
  for (const auto& d : t.dispatches) {
    // Every dispatch resolves to the symbol and agent of its own file.
    EXPECT_EQ(t.symbols[d.symbol].source, d.source);
    EXPECT_EQ(t.agents[d.agent].source, d.source);
  }
}

TEST(RocpdRoundTrip, TwoProcessesInOneFileKeepTheirAgentsApart) {
  const auto dir = test::fresh_dir("mi250x");
  Trace t = read_rocpd({test::scenario("mi250x", 1, dir)});
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].guids.size(), 2u);
  EXPECT_EQ(t.dispatches.size(), 100u);
  EXPECT_EQ(t.agents.size(), 2u);
  for (const auto& d : t.dispatches) {
    const auto& symbol = t.symbols[d.symbol];
    const auto& agent = t.agents[d.agent];
    EXPECT_EQ(symbol.guid, agent.guid);
    EXPECT_EQ(agent.name, "gfx90a");
  }
  const auto& gemm = symbol_named(t, "_Z9gemm_mfmaPKDhS0_Pfi");
  EXPECT_EQ(gemm.arch_vgpr_count, 64);
  EXPECT_EQ(gemm.accum_vgpr_count, 64);
}

TEST(RocpdRoundTrip, WriterRefusesToOverwrite) {
  const auto dir = test::fresh_dir("overwrite");
  const auto path = test::scenario("example", 1, dir);
  const auto before = test::read_text(path);
  RocpdProcessInfo p;
  p.uuid = "0192f0c1-0000-7000-8000-000000000001";
  EXPECT_THROW(RocpdWriter(path, p), rpl::Error);
  EXPECT_EQ(test::read_text(path), before);
}

}  // namespace
}  // namespace rpl::trace

namespace rpl::trace {
namespace {

// Large tables are read in parallel rowid ranges: the result must equal one ordered scan.
void expect_benchmark_rows(const Trace& t, int kernels, int64_t expected_rows, int64_t id_step) {
  ASSERT_EQ(static_cast<int64_t>(t.dispatches.size()), expected_rows);
  int64_t previous = 0;
  for (const auto& d : t.dispatches) {
    ASSERT_GT(d.id, previous) << "rows out of order";
    ASSERT_EQ((d.id - 1) % id_step, 0);
    previous = d.id;
    const int kernel = 1 + static_cast<int>((d.id - 1) % kernels);
    ASSERT_GE(d.symbol, 0);
    ASSERT_EQ(t.symbols[d.symbol].mangled_name, "_Z8kernel" + std::to_string(kernel) + "Pfi") << "dispatch " << d.id;
    ASSERT_EQ(t.geometry(d).group_segment_size, static_cast<uint32_t>((kernel % 4) * 4096));
    ASSERT_EQ(d.agent, 0);
    ASSERT_GE(d.duration_ns(), 4500);
  }
  EXPECT_EQ(t.geometries.size(), 4u);
}

// Runs `statement` on the benchmark trace's one dispatch table, whose name stands for {table}.
void change_dispatch_table(const std::filesystem::path& path, const std::string& statement) {
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE);
  const std::string table = db.execAndGet("SELECT name FROM sqlite_master WHERE name LIKE 'rocpd_kernel_dispatch_%'");
  db.exec(fmt::format(fmt::runtime(statement), fmt::arg("table", "\"" + table + "\"")));
}

TEST(RocpdParallelRead, LargeTableReadsInOrderWithEveryReferenceResolved) {
  const auto path = test::fresh_dir("large") / "large.db";
  tools::write_benchmark_trace(path, 250'000, 37, 3);
  expect_benchmark_rows(read_rocpd({path}), 37, 250'000, 1);
}

TEST(RocpdParallelRead, HolesInTheIdsAreClosedUp) {
  const auto path = test::fresh_dir("holes") / "holes.db";
  tools::write_benchmark_trace(path, 300'000, 37, 3);
  change_dispatch_table(path, "DELETE FROM {table} WHERE (id - 1) % 3 != 0");
  expect_benchmark_rows(read_rocpd({path}), 37, 100'000, 3);
}

// A worker's row that cannot be read stops the read with the same one-line error as a single scan.
TEST(RocpdParallelRead, ACorruptRowReadByAWorkerIsNamed) {
  const auto path = test::fresh_dir("corrupt_worker") / "corrupt.db";
  tools::write_benchmark_trace(path, 250'000, 37, 3);
  change_dispatch_table(path, "UPDATE {table} SET workgroup_size_y = 0 WHERE id = 200000");
  try {
    (void)read_rocpd({path});
    FAIL() << "a dispatch with a workgroup of height 0 was read";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find("dispatch 200000 has an invalid workgroup_size_y of 0"), std::string::npos) << e.what();
  }
}

TEST(RocpdRoundTrip, EventOperationsAndCorrelationIdsReadBack) {
  const auto dir = test::fresh_dir("multistream");
  Trace t = read_rocpd({test::scenario("multistream", 1, dir)});
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.event_operations.size(), 4u * 7u + 1u);
  const auto& record = t.event_operations[0];
  EXPECT_EQ(record.kind, EventOperationKind::event_record);
  EXPECT_EQ(record.stream_id, 1);
  EXPECT_EQ(record.event, 1);
  EXPECT_EQ(record.correlation_id, 3);  // after the copy and the first kernel
  EXPECT_EQ(record.guid, t.sources[0].guids.at(0));
  EXPECT_EQ(t.event_operations[1].kind, EventOperationKind::stream_wait_event);
  EXPECT_EQ(t.event_operations.back().kind, EventOperationKind::device_synchronize);
  ASSERT_EQ(t.dispatches.size(), 16u);
  EXPECT_EQ(t.dispatches[0].correlation_id, 2);
  EXPECT_EQ(t.dispatches[1].correlation_id, 5);
  ASSERT_EQ(t.memory_copies.size(), 1u);
  EXPECT_EQ(t.memory_copies[0].correlation_id, 1);
  EXPECT_EQ(t.memory_copies[0].guid, record.guid);

  // Where no event operation was recorded, correlation ids are not read.
  Trace plain = read_rocpd({test::scenario("example", 1, dir)});
  EXPECT_TRUE(plain.event_operations.empty());
  for (const auto& d : plain.dispatches) EXPECT_EQ(d.correlation_id, 0);
}

}  // namespace
}  // namespace rpl::trace
