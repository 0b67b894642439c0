// The ncu counter pass: its command line, its CSV, and the values stored into a trace database.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/backends/ncu_counters.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/core/error.hpp>

#include "cuda_trace_data.hpp"
#include "test_support.hpp"

namespace rpl::backends {
namespace {

// The shape of `ncu --csv --page raw --print-units base` output: program and ==PROF== lines mixed
// in, a header, a units row, one row per launch (names mangled with --print-kernel-base mangled).
const char* kNcuCsv = R"csv(==PROF== Connected to process 123 (/tmp/app)
softmax rows=64 cols=64
==PROF== Profiling "_Z4fillPf" - 0: 0%....50%....100% - 9 passes
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","gpu__time_duration.sum","launch__registers_per_thread","sm__maximum_warps_per_active_cycle_pct"
"","","","","","","","","","","","ns","register/thread","%"
"0","123","app","host","_Z4fillPf","1","7","(256, 1, 1)","(16, 1, 1)","0","9.0","2,048","16","100"
"1","123","app","host","_Z13softmax_naivePKfPfii","1","7","(256, 1, 1)","(16, 1, 1)","0","9.0","617,536","31","100"
"2","123","app","host","_Z13softmax_naivePKfPfii","1","7","(256, 1, 1)","(16, 1, 1)","0","9.0","618,001","31","n/a"
==PROF== Disconnected from process 123
)csv";

TEST(NcuCounters, CommandLine) {
  auto argv = ncu_argv("/usr/local/cuda/bin/ncu", {"a__b.sum", "c__d.avg"}, {"./app", "x y"});
  EXPECT_EQ(argv, (std::vector<std::string>{"/usr/local/cuda/bin/ncu", "--csv", "--page", "raw", "--print-units", "base",
                                            "--print-kernel-base", "mangled", "--target-processes", "all",
                                            "--clock-control", "none", "--metrics", "a__b.sum,c__d.avg", "./app", "x y"}));
}

TEST(NcuCounters, KernelRegexAndLaunchCountLimitTheReplay) {
  NcuSelection selection;
  selection.kernel_regex = "softmax.*";
  selection.launch_count = 20;
  auto argv = ncu_argv("ncu", {"a__b.sum"}, {"./app"}, selection);
  const std::vector<std::string> tail(argv.end() - 5, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--kernel-name", "regex:softmax.*", "--launch-count", "20", "./app"}));
}

TEST(NcuCounters, MetricsTheGpuLacksAreDropped) {
  std::vector<std::string> dropped;
  auto kept = supported_metrics({"dram__bytes_read.sum", "sm__ops_path_tensor_src_fp8.sum", "gpu__time_duration.sum"},
                                {"dram__bytes_read", "gpu__time_duration"}, dropped);
  EXPECT_EQ(kept, (std::vector<std::string>{"dram__bytes_read.sum", "gpu__time_duration.sum"}));
  EXPECT_EQ(dropped, (std::vector<std::string>{"sm__ops_path_tensor_src_fp8.sum"}));
}

// ncu without permission to read the counters: a missing-tool error that says what to do.
TEST(NcuCounters, NoPermissionIsAClearMissingToolError) {
  RunOptions run;
  run.command = {"/bin/true"};
  test::PathPrepended fake(test::source_dir() / "tests/fixtures/fake_ncu");
  try {
    collect_ncu_counters(run, {"gpu__time_duration.sum"}, {}, {"dram__bytes_read.sum", "lts__t_bytes.sum"});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::missing_tool);
    EXPECT_NE(std::string(e.what()).find("ERR_NVGPUCTRPERM"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << e.what();
  }
}

// A GPU whose ncu lacks some of the metrics asked for if available: those are not asked of ncu
// (the stand-in fails a run that asks for them) and come back as dropped, the others as samples.
TEST(NcuCounters, MetricsThisGpuLacksAreLeftOutAndReported) {
  RunOptions run;
  run.command = {"/bin/true"};
  test::PathPrepended fake(test::source_dir() / "tests/fixtures/fake_ncu_some_metrics");
  const std::string moves = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";
  const auto got = collect_ncu_counters(run, {"gpu__time_duration.sum"}, {}, {"dram__bytes_read.sum", "lts__t_bytes.sum", moves});
  EXPECT_EQ(got.dropped, (std::vector<std::string>{"lts__t_bytes.sum", moves}));
  ASSERT_EQ(got.samples.size(), 2u);
  EXPECT_EQ(got.samples[0].metric, "gpu__time_duration.sum");
  EXPECT_EQ(got.samples[1].metric, "dram__bytes_read.sum");
  EXPECT_EQ(got.samples[1].value, 1048576.0);
}

const std::vector<std::string> kMetrics = {"gpu__time_duration.sum", "launch__registers_per_thread",
                                           "sm__maximum_warps_per_active_cycle_pct"};

TEST(NcuCounters, ParsesLaunchesInOrderPerKernel) {
  auto samples = parse_ncu_csv(kNcuCsv, kMetrics);
  ASSERT_EQ(samples.size(), 3u + 3u + 2u);  // "n/a" is not a value
  EXPECT_EQ(samples[0].kernel, "_Z4fillPf");
  EXPECT_EQ(samples[0].launch, 0u);
  EXPECT_EQ(samples[0].metric, "gpu__time_duration.sum");
  EXPECT_EQ(samples[0].unit, "ns");
  EXPECT_EQ(samples[0].value, 2048.0);
  EXPECT_EQ(samples[3].kernel, "_Z13softmax_naivePKfPfii");
  EXPECT_EQ(samples[3].launch, 0u);
  EXPECT_EQ(samples[3].value, 617536.0);
  EXPECT_EQ(samples[6].launch, 1u);
  EXPECT_EQ(samples[7].metric, "launch__registers_per_thread");
  EXPECT_EQ(samples[7].value, 31.0);
}

TEST(NcuCounters, NothingToParse) {
  EXPECT_TRUE(parse_ncu_csv("", kMetrics).empty());
  EXPECT_TRUE(parse_ncu_csv("==PROF== No kernels were profiled.\n", kMetrics).empty());
  EXPECT_TRUE(parse_ncu_csv(kNcuCsv, {"no__such_metric.sum"}).empty());
}

TEST(NcuCounters, RealNcuOutput) {
  // ncu 2025.3.1 on an H100: softmax_testbed 1024 256 2; the raw page also lists ~250 device
  // attributes, which are not the requested metrics.
  auto samples = parse_ncu_csv(test::read_text(test::source_dir() / "tests/fixtures/ncu_raw_softmax.csv"), kMetrics);
  ASSERT_EQ(samples.size(), 6u);
  for (const auto& s : samples) {
    EXPECT_EQ(s.kernel, "_Z13softmax_naivePKfPfii");
    if (s.metric == "launch__registers_per_thread") {
      EXPECT_EQ(s.value, 31.0);
    } else if (s.metric == "gpu__time_duration.sum") {
      EXPECT_GT(s.value, 1000.0);
    }
  }
  EXPECT_EQ(samples.back().launch, 1u);
}

TEST(NcuCounters, StoredIntoTheTraceAndJoinedToDispatches) {
  capture::CudaTraceData d;
  d.pid = 123;
  d.hostname = "host";
  capture::CudaDeviceInfo dev;
  dev.cc_major = 9;
  d.devices.push_back(dev);
  d.names = {"_Z4fillPf", "_Z13softmax_naivePKfPfii"};
  for (int i = 0; i < 3; ++i) {
    capture::CudaKernelRecord k;
    k.start = 1000 + i * 1000ull;
    k.end = k.start + 500;
    k.name = i == 0 ? 0 : 1;
    k.registers_per_thread = i == 0 ? 16 : 31;
    d.kernels.push_back(k);
  }
  const auto db = test::fresh_dir("counters") / "123_results.db";
  capture::write_cuda_trace(db, d);
  auto samples = parse_ncu_csv(kNcuCsv, kMetrics);
  samples.push_back({"_Z7missingv", 0, "gpu__time_duration.sum", "ns", 1.0});
  auto result = trace::store_counters(db, samples, "ncu");
  EXPECT_EQ(result.stored, 8u);
  EXPECT_EQ(result.unmatched, 1u);
  SQLite::Database sql(db.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(sql.execAndGet("SELECT count(*) FROM rocpd_info_pmc").getInt(), 3);
  EXPECT_EQ(sql.execAndGet("SELECT component FROM rocpd_info_pmc LIMIT 1").getString(), "ncu");
  // The second softmax launch's duration, reached from its dispatch as rocprofv3's views do.
  EXPECT_EQ(sql.execAndGet("SELECT e.value FROM rocpd_kernel_dispatch k JOIN rocpd_pmc_event e ON e.event_id = k.event_id "
                           "JOIN rocpd_info_pmc p ON p.id = e.pmc_id WHERE k.id = 3 AND p.name = 'gpu__time_duration.sum'")
                .getDouble(),
            618001.0);

  // The reader brings them into the trace, by dispatch and counter name.
  auto t = trace::read_rocpd({db});
  EXPECT_EQ(t.counter_names.size(), 3u);
  EXPECT_EQ(t.counter_values.size(), 8u);
  bool found = false;
  for (const auto& v : t.counter_values) {
    if (t.dispatches[v.dispatch].id == 3 && t.counter_names[v.counter] == "gpu__time_duration.sum") {
      EXPECT_EQ(v.value, 618001.0);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

TEST(NcuCounters, MissingNcuIsAMissingTool) {
  if (find_ncu()) GTEST_SKIP() << "ncu is installed here";
  RunOptions run;
  run.command = {"/bin/true"};
  try {
    collect_ncu_counters(run, default_ncu_metrics());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::missing_tool);
    EXPECT_NE(std::string(e.what()).find("ncu (Nsight Compute) not found"), std::string::npos);
  }
}

TEST(NcuCounters, CountersOnTheRocmBackendAreRefused) {
  auto r = test::run_cli({"profile", "--backend", "rocm", "--counters", "--", "/bin/true"},
                         {{"PATH", test::fake_rocprof_dir().string() + ":/usr/bin:/bin"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--counters and --metrics are the NVIDIA backend's"), std::string::npos) << r.err;
  EXPECT_EQ(test::count_lines(r.err), 1) << r.err;
}

}  // namespace
}  // namespace rpl::backends
