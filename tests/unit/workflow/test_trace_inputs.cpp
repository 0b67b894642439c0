// The one place trace inputs are recognised (workflow/trace_inputs.hpp): a database is itself, a
// folder that profile wrote is its runs, whatever the names; anything else is refused in one line.
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/workflow/analyze.hpp>
#include <rpl/workflow/trace_inputs.hpp>

#include <rpl/analysis/dag.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "amd_profiler_files.hpp"
#include "nsys_export_file.hpp"
#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

TEST(WorkflowTraceInputs, AProfileFolderStandsForItsRunsInOrder) {
  const auto dir = fresh_dir("trace_inputs_folder");
  fs::create_directories(dir / "profiled" / ".rocpd_profile");
  for (int run : {2, 1}) tools::write_scenario("mi300x", run, dir / "profiled" / ".rocpd_profile" / ("run" + std::to_string(run) + "_results.db"));
  write_output_file(dir / "profiled" / ".rocpd_profile" / "run1.log", "the program's output\n");
  tools::write_scenario("multistream", 1, dir / "named_anything.trace");
  const auto files = workflow::trace_files({dir / "profiled", dir / "named_anything.trace"});
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].filename(), "run1_results.db");
  EXPECT_EQ(files[1].filename(), "run2_results.db");
  EXPECT_EQ(files[2].filename(), "named_anything.trace") << "a database is one by its content, not its name";
  // analyze reads the folder as it reads its databases.
  workflow::Control control;
  const auto from_folder = workflow::run_analyze({{dir / "profiled"}, std::nullopt, {}, {}, {}}, control);
  const auto from_files = workflow::run_analyze({{files[0], files[1]}, std::nullopt, {}, {}, {}}, control);
  EXPECT_EQ(from_folder.profile, from_files.profile);
}

TEST(WorkflowTraceInputs, AFolderWithoutATraceOrAFileOfAnotherKindIsRefused) {
  const auto dir = fresh_dir("trace_inputs_bad");
  fs::create_directories(dir / "empty");
  std::string message;
  EXPECT_EQ(error_code_of([&] { workflow::trace_files({dir / "empty"}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("a folder with no trace in it"), std::string::npos) << message;
  write_output_file(dir / "results.csv", "Kernel_Name,Start_Timestamp\n");
  EXPECT_EQ(error_code_of([&] { workflow::read_trace_inputs({dir / "results.csv"}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("columns (Kernel_Name, Start_Timestamp) are those of no trace read here"), std::string::npos) << message;
  // A folder whose CSV files are of no trace is a folder with no trace.
  fs::create_directories(dir / "stats");
  write_output_file(dir / "stats" / "kernel_stats.csv", "\"Name\",\"Calls\"\n\"k\",1\n");
  EXPECT_EQ(error_code_of([&] { workflow::trace_files({dir / "stats"}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("a folder with no trace in it"), std::string::npos) << message;
}

// rocprofv3 writes <out>/<host>/<pid>_kernel_trace.csv (or <pid>_results.db); legacy rocprof a
// results.csv: a folder stands for the traces in it, found by their content, in order.
TEST(WorkflowTraceInputs, AFolderOfAnotherProfilerStandsForTheTracesInIt) {
  const auto dir = fresh_dir("trace_inputs_profilers");
  tools::write_scenario("mi300x", 1, dir / "scenario.db");
  const auto t = trace::read_rocpd({dir / "scenario.db"});
  tools::write_rocprofv3_csv(t, dir / "csv" / "host-a", "4002_");
  tools::write_rocprofv3_csv(t, dir / "csv" / "host-a", "4001_");
  write_output_file(dir / "csv" / "host-a" / "4001_kernel_stats.csv", "\"Name\",\"Calls\"\n");
  auto files = workflow::trace_files({dir / "csv"});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "4001_kernel_trace.csv");
  EXPECT_EQ(files[1].filename(), "4002_kernel_trace.csv");
  fs::create_directories(dir / "rocpd" / "host-a");
  fs::copy_file(dir / "scenario.db", dir / "rocpd" / "host-a" / "4001_results.db");
  files = workflow::trace_files({dir / "rocpd"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename(), "4001_results.db");
  tools::write_rocprof_v1(t, dir / "v1");
  files = workflow::trace_files({dir / "v1"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename(), "results.csv");
  // A run of counters alone is its counter_collection.csv; beside a kernel trace, that trace stands for it.
  const auto real = source_dir() / "tests/fixtures/real";
  // Legacy rocprof's run (real): results.csv and results.db hold the same rows, read once; alone, the database.
  files = workflow::trace_files({real / "rocprof-v1-mi250x"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename(), "results.csv");
  fs::create_directories(dir / "v1db");
  fs::copy_file(real / "rocprof-v1-mi250x" / "results.db", dir / "v1db" / "results.db");
  files = workflow::trace_files({dir / "v1db"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename(), "results.db");
  files = workflow::trace_files({real / "rocprofiler-sdk-docs"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename(), "kernel_trace.csv");
  files = workflow::trace_files({real / "rocprofv3-strixhalo-gfx1151"});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "decode_fetch_counter_collection.csv");
  EXPECT_EQ(files[1].filename(), "decode_kernel_trace.csv");
}

// One program's trace as a rocpd database, as rocprofv3's CSV files and JSON, and as legacy
// rocprof's results.csv: the same analysis (top kernel, times, resources, occupancy, critical path), less
// what a format does not record (legacy rocprof: one-dimensional grids, no copies, dispatches
// numbered from 0).
TEST(WorkflowTraceInputs, TheSameTraceInEveryFormatGivesTheSameAnalysis) {
  const auto dir = fresh_dir("trace_inputs_forms");
  tools::write_scenario("mi300x", 1, dir / "run.db");
  const auto rocpd = trace::read_rocpd({dir / "run.db"});
  tools::write_rocprofv3_csv(rocpd, dir / "csv", "4001_");
  tools::write_rocprof_v1(rocpd, dir / "v1");
  fs::create_directories(dir / "json");
  tools::write_rocprofv3_json(rocpd, dir / "json" / "4001_results.json", 4001);
  workflow::Control control;
  const auto a = workflow::run_analyze({{dir / "run.db"}, std::nullopt, {}, {}, {}}, control).profile;
  const auto b = workflow::run_analyze({{dir / "csv"}, std::nullopt, {}, {}, {}}, control).profile;
  const auto c = workflow::run_analyze({{dir / "v1"}, std::nullopt, {}, {}, {}}, control).profile;
  const auto j = workflow::run_analyze({{dir / "json"}, std::nullopt, {}, {}, {}}, control).profile;
  for (const auto* other : {&b, &c, &j}) {
    const std::string form = other == &b ? "rocprofv3 CSV" : other == &c ? "legacy rocprof" : "rocprofv3 JSON";
    EXPECT_EQ((*other)["kernel"]["name"], a["kernel"]["name"]) << form;
    for (const char* key : {"dispatches", "total_ms", "time_fraction"}) EXPECT_EQ((*other)["kernel"][key], a["kernel"][key]) << form << " " << key;
    EXPECT_EQ((*other)["kernel"]["longest_dispatch"]["duration_ms"], a["kernel"]["longest_dispatch"]["duration_ms"]) << form;
    EXPECT_EQ((*other)["kernel"]["block"], a["kernel"]["block"]) << form;
    for (const char* key : {"gpu", "runtime_ms", "stability", "occupancy"}) EXPECT_EQ((*other)[key], a[key]) << form << " " << key;
    for (const char* key : {"vgpr_per_thread", "agpr_per_thread", "sgpr_per_wave", "lds_bytes", "scratch_bytes"}) {
      EXPECT_EQ((*other)["resources"][key], a["resources"][key]) << form << " " << key;
    }
    EXPECT_FALSE((*other)["occupancy"].is_null()) << form;
    // A format that records the LDS as one total does not claim a split of it.
    const bool split = other == &j;
    EXPECT_EQ((*other)["resources"]["static_lds_bytes"].is_null(), !split) << form;
    EXPECT_EQ((*other)["resources"]["dynamic_lds_bytes"].is_null(), !split) << form;
  }
  ASSERT_GT(a["resources"]["static_lds_bytes"].get<int64_t>(), 0) << "the scenario has static LDS: a total alone would hide it";
  EXPECT_EQ(b["kernel"]["grid"], a["kernel"]["grid"]);
  EXPECT_EQ(j["kernel"]["grid"], a["kernel"]["grid"]);
  EXPECT_EQ(j["kernel"]["mangled_name"], a["kernel"]["mangled_name"]) << "rocprofv3's JSON keeps the mangled name";
  EXPECT_EQ(j["resources"], a["resources"]) << "and the symbol's static LDS";
  EXPECT_EQ(b["kernel"]["longest_dispatch"], a["kernel"]["longest_dispatch"]) << "legacy rocprof numbers dispatches from 0";
  // The critical path, from stream order and timestamps in every form (legacy rocprof: queue order).
  const auto path = [](const trace::Trace& t) { return analysis::analyze_dag(t).critical_path_ns; };
  EXPECT_EQ(path(workflow::read_trace_inputs({dir / "csv"})), path(rocpd));
  EXPECT_EQ(path(workflow::read_trace_inputs({dir / "json"})), path(rocpd));
  auto kernels_only = rocpd;  // results.csv lists dispatches alone
  kernels_only.memory_copies.clear();
  EXPECT_EQ(path(workflow::read_trace_inputs({dir / "v1"})), path(kernels_only));
}

// A real trace of a PyTorch program with two streams on an H100 (rocm-perf's CUPTI tracer) and the
// same as an Nsight Systems export: the same analysis, the same critical path through its event waits.
TEST(WorkflowTraceInputs, AnNsightSystemsExportGivesTheAnalysisOfTheSameTrace) {
  const auto dir = fresh_dir("trace_inputs_nsys");
  const auto db = source_dir() / "examples/traces/torch_two_streams_h100.db";
  const auto rocpd = trace::read_rocpd({db});
  fs::create_directories(dir / "nsys");
  tools::write_nsys_export(rocpd, dir / "nsys" / "report1.sqlite", 4242, tools::NsysRelease::v2025_5);
  workflow::Control control;
  const auto a = workflow::run_analyze({{db}, std::nullopt, {}, {}, {}}, control).profile;
  const auto b = workflow::run_analyze({{dir / "nsys"}, std::nullopt, {}, {}, {}}, control).profile;
  for (const char* key : {"kernel", "gpu", "runtime_ms", "stability", "resources", "occupancy"}) EXPECT_EQ(b[key], a[key]) << key;
  EXPECT_TRUE(a["roofline"].is_object());
  EXPECT_TRUE(b["roofline"].is_null()) << "an export holds no counters of a kernel";
  EXPECT_EQ(b["occupancy"]["limiter"], "registers");
  const auto dag = [](const trace::Trace& t) { return analysis::analyze_dag(t); };
  const auto from_rocpd = dag(rocpd), from_nsys = dag(workflow::read_trace_inputs({dir / "nsys"}));
  EXPECT_EQ(from_nsys.critical_path_ns, from_rocpd.critical_path_ns);
  EXPECT_EQ(from_nsys.edge_counts, from_rocpd.edge_counts);
  EXPECT_EQ(from_nsys.cross_edges.size(), from_rocpd.cross_edges.size());
  ASSERT_EQ(from_nsys.processes.size(), 1u);
  EXPECT_TRUE(from_nsys.processes[0].dependencies_recorded) << "its waits are edges, not inferred from timestamps";
}

// Traces of two kinds of GPU given together would be averaged into a kernel that ran on neither.
TEST(WorkflowTraceInputs, RunsOfTwoKindsOfGpuAreRefused) {
  const auto dir = fresh_dir("trace_inputs_two_gpus");
  tools::write_scenario("mi300x", 1, dir / "mi300x.db");
  tools::write_scenario("mi250x", 1, dir / "mi250x.db");
  workflow::Control control;
  std::string message;
  EXPECT_EQ(error_code_of([&] { workflow::run_analyze({{dir / "mi300x.db", dir / "mi250x.db"}, std::nullopt, {}, {}, {}}, control); }, &message),
            Errc::bad_input);
  EXPECT_NE(message.find("mi300x.db ran on gfx942 and"), std::string::npos) << message;
  EXPECT_NE(message.find("mi250x.db on gfx90a: give the runs of one kind of GPU at a time"), std::string::npos) << message;
  tools::write_scenario("mi300x", 2, dir / "mi300x_2.db");
  EXPECT_NO_THROW(workflow::run_analyze({{dir / "mi300x.db", dir / "mi300x_2.db"}, std::nullopt, {}, {}, {}}, control)) << "two runs of one GPU combine";
  // One program may use GPUs of two kinds: its trace is one.
  auto mixed = trace::read_rocpd({dir / "mi300x.db"});
  auto other = mixed.agents.back();
  other.id += 10;
  other.name = "gfx90a";
  mixed.agents.push_back(other);
  for (size_t i = 0; i < mixed.dispatches.size(); i += 2) mixed.dispatches[i].agent = static_cast<int16_t>(mixed.agents.size() - 1);
  tools::write_rocprofv3_csv(mixed, dir / "mixed", "4001_");
  EXPECT_NO_THROW(workflow::run_analyze({{dir / "mixed"}, std::nullopt, {}, {}, {}}, control));
}

// A rocprof-compute workload (Omniperf 2.0, MI300X): its per-dispatch counters place the kernel on
// the roofline, its sysinfo.csv names the GPU and its bandwidth.
TEST(WorkflowTraceInputs, ARocprofComputeWorkloadIsAnalyzedWithItsCounters) {
  const auto workload = source_dir() / "tests/fixtures/real/rocprofiler-compute-mi300x";
  const auto t = workflow::read_trace_inputs({workload});
  ASSERT_EQ(t.dispatches.size(), 3u);
  EXPECT_EQ(t.symbols[0].name(), "vecCopy(double*, double*, double*, int, int)") << "without its \" (.kd)\"";
  EXPECT_EQ(t.agents.at(0).name, "gfx942");
  EXPECT_EQ(t.agents.at(0).compute_units, 304);
  EXPECT_DOUBLE_EQ(t.agents.at(0).dram_bytes_per_s.value_or(0), 5324.8e9);
  const auto has = [&](const std::string& n) { return std::find(t.counter_names.begin(), t.counter_names.end(), n) != t.counter_names.end(); };
  EXPECT_TRUE(has("SQ_INSTS_VALU_ADD_F32"));
  EXPECT_TRUE(has("TCC_EA0_RDREQ_sum"));
  EXPECT_FALSE(has("TCC_HIT[0]")) << "per-channel columns are summed in their _sum column";
  EXPECT_FALSE(has("Correlation_ID_1")) << "a pass's repeated columns are no counters";
  workflow::Control control;
  const auto profile = workflow::run_analyze({{workload}, std::nullopt, {}, {}, {}}, control).profile;
  EXPECT_EQ(profile["gpu"]["architecture"], "gfx942");
  EXPECT_EQ(profile["occupancy"]["limiter"], "waves");
  ASSERT_TRUE(profile["roofline"].is_object()) << profile.dump();
  EXPECT_EQ(profile["roofline"]["binding_ceiling"], "dram");
  EXPECT_DOUBLE_EQ(profile["roofline"]["bytes"]["dram"].get<double>(), 50378880.0);
}

// An Omniperf 1.x workload (rocprof v1's columns and a column per counter, on an MI200; its first 12
// dispatches): the GPU from its sysinfo.csv, the counters place the kernel on the roofline.
TEST(WorkflowTraceInputs, AnOmniperf1WorkloadIsAnalyzedWithItsCounters) {
  const auto workload = source_dir() / "tests/fixtures/real/omniperf-1.0.10-mi200";
  const auto t = workflow::read_trace_inputs({workload});
  ASSERT_EQ(t.dispatches.size(), 12u);
  EXPECT_EQ(t.agents.at(0).name, "gfx90a");
  EXPECT_EQ(t.agents.at(0).compute_units, 104);
  EXPECT_DOUBLE_EQ(t.agents.at(0).dram_bytes_per_s.value_or(0), 1638.4e9);
  const auto has = [&](const std::string& n) { return std::find(t.counter_names.begin(), t.counter_names.end(), n) != t.counter_names.end(); };
  EXPECT_TRUE(has("SQ_WAVES"));
  EXPECT_TRUE(has("TCC_EA_RDREQ_sum"));
  EXPECT_FALSE(has("TCC_CYCLE[0]")) << "per-channel columns are summed in their _sum column";
  EXPECT_FALSE(has("BeginNs")) << "rocprof's own columns are no counters";
  workflow::Control control;
  const auto profile = workflow::run_analyze({{workload}, std::nullopt, {}, {}, {}}, control).profile;
  EXPECT_EQ(profile["kernel"]["name"], "void benchmark_func<double, 256, 8u, 1u>(double, double*)");
  EXPECT_EQ(profile["occupancy"]["theoretical"], 1.0);
  ASSERT_TRUE(profile["roofline"].is_object()) << profile.dump();
  EXPECT_EQ(profile["roofline"]["roofline_position"], "memory_bound");
  EXPECT_DOUBLE_EQ(profile["roofline"]["flops"]["fp64"].get<double>(), 100663296.0) << "mixbench's fp64 kernel";
  // It ran once: one sample says nothing of how its time repeats.
  EXPECT_EQ(profile["kernel"]["dispatches"], 1);
  EXPECT_EQ(profile["stability"]["classification"], "single_sample");
  EXPECT_NE(profile["warnings"].dump().find("the selected kernel ran once: its time is a single sample, whose spread is unknown"),
            std::string::npos)
      << profile["warnings"].dump();
}

}  // namespace
}  // namespace rpl::test
