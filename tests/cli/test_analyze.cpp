// rocm-perf analyze on scenario traces: golden JSON, schema validity, determinism, the alias.
#include <algorithm>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>
#include <rpl/core/subprocess.hpp>

#include <rpl/trace/rocpd_reader.hpp>

#include "nsys_export_file.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

std::vector<std::string> three_runs(const std::string& scenario_name) {
  const auto dir = fresh_dir(scenario_name);
  std::vector<std::string> files;
  for (int run = 1; run <= 3; ++run) files.push_back(scenario(scenario_name, run, dir).string());
  return files;
}

void expect_golden_analysis(const std::string& scenario_name, const std::string& golden) {
  auto args = three_runs(scenario_name);
  args.insert(args.begin(), {"analyze", "--json"});
  auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "--json keeps stderr quiet unless something is wrong";
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  EXPECT_EQ(golden_difference(r.out, golden), "");
}

TEST(CliAnalyze, Mi300xGolden) { expect_golden_analysis("mi300x", "analyze_mi300x.json"); }
TEST(CliAnalyze, Mi250xGolden) { expect_golden_analysis("mi250x", "analyze_mi250x.json"); }
TEST(CliAnalyze, Rx6900xtGolden) { expect_golden_analysis("rx6900xt", "analyze_rx6900xt.json"); }

TEST(CliAnalyze, RawSqlDatabaseGolden) {
  const auto path = fresh_dir("raw") / "raw.db";
  ProcessOptions p;
  p.argv = {"sqlite3", path.string(), ".read " + (source_dir() / "tests/fixtures/rocpd_v3_raw.sql").string()};
  ASSERT_TRUE(run_process(p).ok());
  auto r = run_cli({"analyze", "--json", path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  EXPECT_EQ(golden_difference(r.out, "analyze_raw_sql.json"), "");
}

TEST(CliAnalyze, SameInputSameBytes) {
  auto files = three_runs("mi300x");
  std::vector<std::string> args = {"analyze", "--json"};
  args.insert(args.end(), files.begin(), files.end());
  auto a = run_cli(args);
  auto b = run_cli(args);
  ASSERT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out, b.out);
}

TEST(CliAnalyze, HumanSummaryAndWarningsGoToTheirStreams) {
  auto r = run_cli({"analyze", three_runs("mi300x")[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Kernel      matmul_kernel\n"), std::string::npos) << r.out;
  auto full = run_cli({"analyze", "--names", "full", three_runs("mi300x")[0]});
  EXPECT_NE(full.out.find("Kernel      matmul_kernel(float const*, float const*, float*, int, int, int)\n"), std::string::npos);
  EXPECT_NE(r.out.find("Occupancy   25.0 %"), std::string::npos);
  EXPECT_NE(r.out.find("limited by lds"), std::string::npos);
  EXPECT_NE(r.err.find("warning: the selected kernel holds only"), std::string::npos);
  EXPECT_EQ(r.out.find("warning"), std::string::npos);
}

TEST(CliAnalyze, QuietPrintsTheRuntimeAlone) {
  auto files = three_runs("example");
  auto quiet = run_cli({"analyze", "--quiet", files[0]});
  auto json = run_cli({"analyze", "--json", files[0]});
  ASSERT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(count_lines(quiet.out), 1);
  EXPECT_DOUBLE_EQ(std::stod(quiet.out), nlohmann::json::parse(json.out)["runtime_ms"].get<double>());
}

TEST(CliAnalyze, KernelRegexSelects) {
  auto r = run_cli({"analyze", "--json", "--kernel", "softmax", three_runs("mi300x")[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["kernel"]["mangled_name"], "_Z14softmax_kernelPfii");
  EXPECT_EQ(doc["occupancy"]["limiter"], "waves");  // 1024-thread blocks: 16 waves each, 2 fit in 32 slots
  EXPECT_EQ(doc["occupancy"]["active_workgroups_per_cu"], 2);
}

TEST(CliAnalyze, WritesProfileJsonWithOut) {
  const auto out = fresh_dir("analyze-out") / "result";
  auto r = run_cli({"analyze", "--json", "--out", out.string(), three_runs("example")[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out / "profile.json"), r.out);
}

TEST(CliAnalyze, BundledExampleTraceAnalyzes) {
  auto r = run_cli({"analyze", "--json", (source_dir() / "examples/traces/softmax_h100.db").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  EXPECT_EQ(golden_difference(r.out, "analyze_example.json"), "");
}

// What scripts/demo.sh shows a new user: the PyTorch trace with counters and two streams gives
// the roofline, the critical path across the streams and the bottleneck, and its report.
TEST(CliAnalyze, TheDemosPytorchTraceShowsRooflineDagAndBottleneck) {
  const auto db = source_dir() / "examples/traces/torch_two_streams_h100.db";
  const auto out = fresh_dir("demo") / "out";
  auto r = run_cli({"analyze", "--out", out.string(), db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"Roofline    compute-bound", "DAG         critical path 13.792 ms through 13 of 26 GPU operations",
                           "Bottleneck  compute_bound"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  const auto dag = nlohmann::json::parse(read_text(out / "dag.json"));
  EXPECT_GT(dag["edges"]["event"].get<int>(), 0) << "the events between the two streams";
  auto report = run_cli({"report", out.string(), "--trace", db.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto html = read_text(out / "report.html");
  EXPECT_NE(html.find("The GPU works from 225.422 to 238.847 ms, busy 83.2 % of that window (5.9 % of the whole trace)"),
            std::string::npos) << "the report's timeline opens where the GPU works, not on PyTorch's start-up";
}

// The human summary in each vendor's words (NVIDIA: registers, shared and local memory).
TEST(CliAnalyze, HumanSummaryGoldenNvidia) {
  auto r = run_cli({"analyze", (source_dir() / "examples/traces/softmax_h100.db").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Resources   Registers 31 per thread, shared memory 0 B (static 0 + dynamic 0), local 0 B"),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("VGPR"), std::string::npos);
  EXPECT_EQ(golden_difference(r.out, "analyze_example.txt"), "");
}

TEST(CliAnalyze, HumanSummaryGoldenAmd) {
  auto r = run_cli({"analyze", three_runs("mi300x")[0]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Resources   VGPR "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Registers"), std::string::npos);
  EXPECT_EQ(golden_difference(r.out, "analyze_mi300x.txt"), "");
}

// Files of other profilers, as their folders hold them: each is recognised, and what it lacks is
// said once (docs/trace-formats.md); the same input gives the same JSON bytes.
TEST(CliAnalyze, FoldersOfOtherProfilersAnalyze) {
  const auto real = source_dir() / "tests/fixtures/real";
  auto csv = run_cli({"analyze", (real / "rocprofiler-sdk-docs").string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("Kernel      addition_kernel<float>"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("GPU         not known (the trace does not say; see the warnings)"), std::string::npos) << csv.out;
  EXPECT_NE(csv.err.find("no agent_info.csv beside it"), std::string::npos) << csv.err;
  EXPECT_NE(csv.out.find("LDS 0 B (static and dynamic not told apart by the trace)"), std::string::npos)
      << "its LDS_Block_Size is the dispatch's total\n" << csv.out;
  // ROCm 6.2's layout records no register counts: they are not known, rather than 0.
  auto old_layout = run_cli({"analyze", "--json", (real / "rocprofiler-sdk-docs-2024-10/kernel_trace.csv").string()});
  ASSERT_EQ(old_layout.exit_code, 0) << old_layout.err;
  EXPECT_EQ(schema_errors(old_layout.out, "profile"), "");
  const auto resources = nlohmann::json::parse(old_layout.out)["resources"];
  for (const char* field : {"vgpr_per_thread", "agpr_per_thread", "sgpr_per_wave"}) EXPECT_TRUE(resources[field].is_null()) << resources;
  EXPECT_EQ(resources["lds_bytes"], 0);
  EXPECT_NE(run_cli({"analyze", (real / "rocprofiler-sdk-docs-2024-10/kernel_trace.csv").string()})
                .out.find("Resources   VGPR, AGPR and SGPR not recorded, LDS 0 B"),
            std::string::npos);
  auto rocprof = run_cli({"analyze", "--json", (real / "rocprof-v1-mi250x").string()});
  ASSERT_EQ(rocprof.exit_code, 0) << rocprof.err;
  const auto j = nlohmann::json::parse(rocprof.out);
  EXPECT_EQ(j["gpu"]["architecture"], "gfx90a");
  EXPECT_EQ(j["occupancy"]["active_waves_per_cu"], 32) << "24 VGPRs: 8 waves per SIMD";
  EXPECT_TRUE(j["resources"]["static_lds_bytes"].is_null()) << "results.csv's lds is the dispatch's total";
  EXPECT_EQ(run_cli({"analyze", "--json", (real / "rocprof-v1-mi250x").string()}).out, rocprof.out);
  auto kineto = run_cli({"analyze", "--json", (source_dir() / "tests/fixtures/kineto/torch_step_h200.json").string()});
  ASSERT_EQ(kineto.exit_code, 0) << kineto.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(kineto.out)["occupancy"]["theoretical"].get<double>(), 0.125) << "255 registers: 2 blocks of 4 warps";
  // An Nsight Systems export of a PyTorch program on an H100, as nsys 2025.5 lays it out: analyzed,
  // exported to Perfetto and reported like the tracer's own database.
  const auto dir = fresh_dir("cli_nsys");
  tools::write_nsys_export(trace::read_rocpd({source_dir() / "examples/traces/torch_two_streams_h100.db"}), dir / "report1.sqlite", 4242,
                           tools::NsysRelease::v2025_5);
  auto nsys = run_cli({"analyze", "--out", (dir / "out").string(), (dir / "report1.sqlite").string()});
  ASSERT_EQ(nsys.exit_code, 0) << nsys.err;
  for (const char* line : {"Occupancy   12.5 % (8 of 64 warps per SM; 1 block per SM), limited by registers",
                           "DAG         critical path 13.792 ms through 13 of 26 GPU operations"}) {
    EXPECT_NE(nsys.out.find(line), std::string::npos) << line << "\n" << nsys.out;
  }
  auto exported = run_cli({"export", "--format", "perfetto", (dir / "report1.sqlite").string(), "-o", (dir / "perfetto.json").string()});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  auto report = run_cli({"report", (dir / "out").string(), "--trace", (dir / "report1.sqlite").string()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
}

// A PyTorch FP32 training step on an H200 (its profiler's trace): the dominant kernel is cuBLAS's
// FP32 GEMM on CUDA cores, whose 255 registers are the library's choice. The advice is the tensor
// cores the program can ask for, not fewer registers, which were the first thing to try before.
TEST(CliAnalyze, ALibrarysFp32GemmIsAdvisedTensorCoresNotFewerRegisters) {
  const auto dir = fresh_dir("library_advice");
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), (source_dir() / "tests/fixtures/kineto/torch_step_h200.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto analysis = nlohmann::json::parse(read_file(dir / "out/analysis.json"));
  const auto& c = analysis["classification"];
  EXPECT_EQ(c["bottleneck"], "occupancy_limited");
  EXPECT_NE(c["next_steps"][0].get<std::string>().find("torch.set_float32_matmul_precision('high')"), std::string::npos) << c;
  EXPECT_NE(c["next_steps"][1].get<std::string>().find("a cuBLAS kernel: its registers and tiles are the library's choice"),
            std::string::npos)
      << c;
  EXPECT_NE(r.out.find("why: its name says an FP32 GEMM of cuBLAS on CUDA cores (ffma, simt): no tensor cores"), std::string::npos)
      << r.out;
}

// Nsight Compute's CSV of an sm_100 GEMM: the occupancy computed from its launch statistics is the
// one ncu printed in the same file (Theoretical Occupancy 18.75 %, 12 warps, a block per SM, the
// registers' and shared memory's limits 1 block each).
TEST(CliAnalyze, AnNsightComputeCsvGivesTheOccupancyNcuComputed) {
  const auto file = source_dir() / "tests/fixtures/real/ncu-superbench-b200/cublaslt_ncu.log";
  auto r = run_cli({"analyze", "--json", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"]["architecture"], "sm_100");
  EXPECT_DOUBLE_EQ(j["occupancy"]["theoretical"].get<double>(), 0.1875);
  EXPECT_EQ(j["occupancy"]["active_waves_per_cu"], 12);
  EXPECT_EQ(j["occupancy"]["active_workgroups_per_cu"], 1);
  const auto& limits = j["occupancy"]["limits"];
  EXPECT_EQ(limits["registers"], 1);
  EXPECT_EQ(limits["shared_memory"], 1);
  EXPECT_EQ(limits["warps"], 5) << "ncu's Block Limit Warps";
  EXPECT_EQ(limits["blocks"], 32) << "ncu's Block Limit SM";
  EXPECT_DOUBLE_EQ(j["kernel"]["total_ms"].get<double>(), 0.40624);
  EXPECT_EQ(run_cli({"analyze", "--json", file.string()}).out, r.out) << "same input, same bytes";
  // ncu's rules of it, the largest estimates first; WorkloadImbalance, which ncu reported of four
  // units, is named once.
  auto text = run_cli({"analyze", "--out", fresh_dir("ncu_sm100_rules").string(), file.string()});
  EXPECT_NE(text.out.find("ncu says    TheoreticalOccupancy (estimated local speedup 81.2 %), LaunchConfiguration (estimated "
                          "global speedup 50.0 %), WorkloadImbalance (estimated global speedup 14.6 %); its words are in "
                          "analysis.json\n"),
            std::string::npos)
      << text.out;
  // Its raw page, of our softmax testbed on an H100: ncu's launch__occupancy_limit_registers, _warps
  // and _blocks are 8, 8 and 32 blocks.
  auto raw = run_cli({"analyze", "--json", (source_dir() / "tests/fixtures/ncu_raw_softmax.csv").string()});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(schema_errors(raw.out, "profile"), "");
  const auto h100 = nlohmann::json::parse(raw.out)["occupancy"];
  EXPECT_EQ(h100["theoretical"], 1.0);
  EXPECT_EQ(h100["limits"]["registers"], 8);
  EXPECT_EQ(h100["limits"]["warps"], 8);
  EXPECT_EQ(h100["limits"]["blocks"], 32);
}

// A PyTorch program (tests/gpu/programs/torch_roofline.py: its random fills, cuBLAS's bf16 GEMM and
// elementwise kernels), its first 12 launches as ncu 2025.3.1 wrote them on an H200
// (scripts/gpu/run_ncu_csv.sh), both pages. Each kernel's occupancy is the Theoretical Occupancy ncu
// printed in the details page: 62.5 % (44 registers a thread, 256 threads), 18.75 % (168, 384) and
// 100 % (28 or 32, 128).
TEST(CliAnalyze, EachKernelOfAPyTorchProgramGetsTheOccupancyNcuComputed) {
  const std::vector<std::pair<std::string, double>> ncu = {
      {"distribution_elementwise", 0.625}, {"nvjet_sm90", 0.1875}, {"vectorized_elementwise", 1.0}};
  for (const char* page : {"details", "raw"}) {
    const auto file = source_dir() / fmt::format("tests/fixtures/ncu_{}_torch_roofline.csv", page);
    for (const auto& [kernel, occupancy] : ncu) {
      auto r = run_cli({"analyze", "--json", "--kernel", kernel, file.string()});
      ASSERT_EQ(r.exit_code, 0) << page << " " << kernel << ": " << r.err;
      EXPECT_EQ(schema_errors(r.out, "profile"), "");
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_DOUBLE_EQ(j["occupancy"]["theoretical"].get<double>(), occupancy) << page << " " << kernel;
      EXPECT_EQ(j["gpu"]["architecture"], "sm_90");
    }
  }
  auto raw = run_cli({"analyze", "--json", (source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv").string()});
  const auto j = nlohmann::json::parse(raw.out);
  EXPECT_EQ(j["gpu"]["product"], "NVIDIA H200") << "the raw page's device__attribute_display_name";
  EXPECT_EQ(j["gpu"]["product_recorded"], true);
  EXPECT_EQ(j["kernel"]["dispatches"], 3) << "the GEMM, once a loop";
  // The details page names no product: the sm_90 table's typical one stands in, and is said to.
  const auto details = (source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv").string();
  const auto d = nlohmann::json::parse(run_cli({"analyze", "--json", details}).out);
  EXPECT_EQ(d["gpu"]["product_recorded"], false);
  EXPECT_NE(run_cli({"analyze", details}).out.find("GPU         sm_90, product not recorded (taken as NVIDIA H100 SXM), 132 SMs"),
            std::string::npos);
}

// The raw page's device attributes give the H200's clock and DRAM peak (6016-bit bus, 3.201 GHz
// memory clock: 4.81 TB/s), and its dram__bytes.sum the bytes (no FLOPs were asked for): the
// clamp kernel's 4.03 TB/s is memory-bound without a roofline position.
TEST(CliAnalyze, AnNcuRawPageWithDramBytesAloneJudgesBandwidth) {
  const auto dir = fresh_dir("ncu_raw_bandwidth");
  const auto raw = source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv";
  auto r = run_cli({"analyze", "--kernel", "launch_clamp_scalar", "--out", (dir / "out").string(), raw.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto roofline = nlohmann::json::parse(read_file(dir / "out/roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  EXPECT_DOUBLE_EQ(roofline["ceilings"]["bytes_per_s"]["dram"].get<double>(), 2.0 * 3201000e3 * 6016 / 8);
  EXPECT_DOUBLE_EQ(roofline["device"]["clock_mhz"].get<double>(), 1980);
  const auto analysis = nlohmann::json::parse(read_file(dir / "out/analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  EXPECT_EQ(analysis["classification"]["bottleneck"], "memory_bandwidth_bound") << analysis["classification"];
  EXPECT_NE(analysis["classification"]["reasons"][0].get<std::string>().find("DRAM 4.03 TB/s = 83.8 % of its peak"), std::string::npos)
      << analysis["classification"]["reasons"][0];
  // Launches ncu laid end to end have no gaps measured: no GPU busy fraction, said so.
  EXPECT_TRUE(analysis["inputs"]["gpu_busy_fraction"].is_null());
  EXPECT_NE(analysis["rules"][0]["reason"].get<std::string>().find("timed one at a time"), std::string::npos) << analysis["rules"][0];
  // Nor is the DAG the program's: its path is the launches' sum, and says so.
  const auto dag = nlohmann::json::parse(read_file(dir / "out/dag.json"));
  EXPECT_EQ(schema_errors(dag.dump(), "dag"), "");
  EXPECT_EQ(dag["processes"][0]["dependencies"], "laid_end_to_end");
  EXPECT_EQ(dag["critical_path_ns"], dag["makespan_ns"]);
  EXPECT_NE(r.out.find("GPU operations (launches timed one at a time and laid end to end: their sum, not the program's timeline)"),
            std::string::npos)
      << r.out;
}

// ncu's own percentages of peak (the details page's GPU Speed Of Light section) judge the kernels
// of the PyTorch program, which no FLOPs or bytes counted place on the roofline: cuBLAS's GEMM at
// 89.9 % of the SM's peak is compute-bound (its 18.75 % occupancy, one block an SM, is by design),
// the clamp at 85 % of the DRAM's is bandwidth-bound. Before, the GEMM was "occupancy_limited: use
// fewer registers" and the clamp "mixed: no counter data".
TEST(CliAnalyze, NcuSpeedOfLightJudgesTheKernelsOfAPyTorchProgram) {
  const auto dir = fresh_dir("ncu_speed_of_light");
  const auto details = (source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv").string();
  auto analysis_of = [&](const std::string& kernel) {
    const auto out = dir / kernel;
    auto r = run_cli({"analyze", "--kernel", kernel, "--out", out.string(), details});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto text = read_file(out / "analysis.json");
    EXPECT_EQ(schema_errors(text, "analysis"), "");
    return nlohmann::json::parse(text);
  };
  auto text = run_cli({"analyze", details});
  EXPECT_NE(text.out.find("Roofline    not placed: no FLOPs counted: the trace has none of the FLOP counters\n"
                          "SOL         SM 89.9 %, memory 69.5 %, DRAM 16.6 % of their peaks (ncu's speed of light, 3 launches)\n"),
            std::string::npos)
      << text.out;
  const auto gemm = analysis_of("nvjet_sm90");
  EXPECT_EQ(gemm["classification"]["bottleneck"], "compute_bound") << gemm["classification"];
  EXPECT_NE(gemm["classification"]["reasons"][0].get<std::string>().find("SM throughput at 89.9 % of its peak"), std::string::npos);
  const auto& sol = gemm["inputs"]["speed_of_light"];
  EXPECT_EQ(sol["measured_dispatches"], 3);
  EXPECT_NEAR(sol["sm_percent"].get<double>(), 89.882928, 1e-6) << "89.91, 89.75 and 89.99 weighted by duration";
  EXPECT_NEAR(sol["memory_percent"].get<double>(), 69.523015, 1e-6);
  EXPECT_NEAR(sol["dram_percent"].get<double>(), 16.60632, 1e-6);
  // ncu's own rules of the same launches, beside ours: its largest estimate first, in its words.
  const auto& findings = gemm["tool_findings"];
  ASSERT_EQ(findings.size(), 3u) << findings;
  EXPECT_EQ(findings[0]["rule"], "TheoreticalOccupancy");
  EXPECT_EQ(findings[0]["speedup"]["kind"], "local");
  EXPECT_EQ(findings[0]["speedup"]["percent"], 81.25);
  EXPECT_EQ(findings[0]["launches"], 3);
  EXPECT_EQ(findings[1]["rule"], "SOLBottleneck");
  EXPECT_TRUE(findings[1]["speedup"].is_null());
  auto with_out = run_cli({"analyze", "--kernel", "nvjet_sm90", "--out", (dir / "text").string(), details});
  EXPECT_NE(with_out.out.find("ncu says    TheoreticalOccupancy (estimated local speedup 81.2 %); its words are in analysis.json\n"),
            std::string::npos)
      << with_out.out;
  const auto clamp = analysis_of("launch_clamp_scalar");
  EXPECT_EQ(clamp["classification"]["bottleneck"], "memory_bandwidth_bound") << clamp["classification"];
  EXPECT_NE(clamp["classification"]["reasons"][0].get<std::string>().find("DRAM at 85.0 % of its peak (ncu's speed of light"),
            std::string::npos);
  // roofline.json gives every kernel's percentages, not the dominant kernel's alone.
  const auto roofline_text = read_file(dir / "launch_clamp_scalar/roofline.json");
  EXPECT_EQ(schema_errors(roofline_text, "roofline"), "");
  const auto roofline = nlohmann::json::parse(roofline_text);
  ASSERT_EQ(roofline["kernels"].size(), 6u);
  for (const auto& k : roofline["kernels"]) {
    EXPECT_TRUE(k["roofline_position"].is_null()) << k["name"];
    EXPECT_TRUE(k["speed_of_light"].is_object()) << k["name"];
    if (k["name"].get<std::string>().find("launch_clamp_scalar") == std::string::npos) continue;
    EXPECT_EQ(k["speed_of_light"]["measured_dispatches"], 2);
    EXPECT_NEAR(k["speed_of_light"]["dram_percent"].get<double>(), 85.04998, 1e-6);
  }
  // The raw page of the same program asked for no speed of light: its DRAM bytes judge instead.
  auto raw = run_cli({"analyze", "--kernel", "nvjet_sm90", "--out", (dir / "raw").string(),
                      (source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv").string()});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_TRUE(nlohmann::json::parse(read_file(dir / "raw/analysis.json"))["inputs"]["speed_of_light"].is_null());
}

// ncu records its own theoretical occupancy of each launch: on the real files of the tests it is
// ours, to the decimal; where it is not (here the Triton file with add_kernel's figure changed from
// 100 to 75 %), a warning says so and which to take. The barriers the raw page gives bound cuBLAS's
// GEMM to 21 blocks an SM, as ncu's own limit says.
TEST(CliAnalyze, OccupancyIsCheckedAgainstNcusOwn) {
  const auto dir = fresh_dir("ncu_occupancy_check");
  auto warnings_of = [&](const fs::path& file, const std::string& kernel = "") {
    std::vector<std::string> args = {"analyze", "--json", file.string()};
    if (!kernel.empty()) args.insert(args.begin() + 1, {"--kernel", kernel});
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  auto checked = [](const nlohmann::json& j) {
    for (const auto& w : j["warnings"]) {
      if (w.get<std::string>().find("ncu's own theoretical occupancy") != std::string::npos) return w.get<std::string>();
    }
    return std::string();
  };
  const auto triton = source_dir() / "tests/fixtures/ncu_import_raw_triton_add.csv";
  for (const auto& [file, kernel] : std::vector<std::pair<fs::path, std::string>>{
           {triton, ""}, {triton, "distribution"}, {source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv", "vectorized"},
           {source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv", "distribution"}}) {
    EXPECT_EQ(checked(warnings_of(file, kernel)), "") << file << " " << kernel;
  }
  const auto gemm = warnings_of(source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv");
  EXPECT_EQ(checked(gemm), "");
  EXPECT_EQ(gemm["occupancy"]["limits"]["barriers"], 21) << gemm["occupancy"];

  // add_kernel's launches: ncu said 100 %; say 75 % instead.
  std::string text = read_file(triton);
  const auto header = text.substr(0, text.find('\n', text.find("\"ID\"")));
  std::vector<std::string> columns;
  for (size_t at = 0; (at = header.find('"', at)) != std::string::npos; at = header.find('"', at + 1) + 1) {
    columns.push_back(header.substr(at + 1, header.find('"', at + 1) - at - 1));
  }
  const auto column = std::find(columns.begin(), columns.end(), "sm__maximum_warps_per_active_cycle_pct") - columns.begin();
  ASSERT_LT(static_cast<size_t>(column), columns.size());
  std::string changed;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"add_kernel\"") != std::string::npos) {
      size_t at = 0;
      for (long i = 0; i < column; ++i) at = line.find("\",\"", at) + 3;
      ASSERT_EQ(line.substr(at, 4), "100\"") << "column " << column;
      line.replace(at, 3, "75");
    }
    changed += line + "\n";
  }
  write_text(dir / "changed.csv", changed);
  const auto warned = checked(warnings_of(dir / "changed.csv"));
  EXPECT_NE(warned.find("the occupancy here (100.0 %) is not ncu's own theoretical occupancy of the same launch (75.0 %)"),
            std::string::npos)
      << warned;
}

// The raw page of a real full-set report (ncu --set full) of the PyTorch program on an H100: its
// WarpStateStats section gives the stalls of cuBLAS's GEMM. ncu's own CPIStall rule of the same
// launches (their details page) says 6.0 of its 19.55 cycles between two issued instructions are
// spent at a CTA barrier (30.7 %), and its Executed Ipc Active is 0.48.
TEST(CliAnalyze, AFullSetNcuFileGivesTheStallsNcuSees) {
  const auto dir = fresh_dir("ncu_full_set");
  auto r = run_cli({"analyze", "--out", dir.string(), (source_dir() / "tests/fixtures/ncu_import_raw_full_torch_roofline.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto analysis = nlohmann::json::parse(read_file(dir / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  const auto& stalls = analysis["stalls"];
  ASSERT_TRUE(stalls.is_object()) << analysis;
  EXPECT_EQ(analysis["classification"]["kernel"], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(stalls["measured_dispatches"], 3);
  EXPECT_NEAR(stalls["stalls"]["barrier"].get<double>(), 6.0 / 19.55, 0.005) << stalls;
  EXPECT_DOUBLE_EQ(stalls["ipc"].get<double>(), 0.48);
  std::string largest;
  double share = 0;
  for (const auto& [reason, f] : stalls["stalls"].items()) {
    if (f.get<double>() > share) share = f.get<double>(), largest = reason;
  }
  EXPECT_EQ(largest, "barrier");
  EXPECT_NEAR(stalls["vendor_stalls"]["gmma"].get<double>(), stalls["stalls"]["matrix"].get<double>(), 1e-9) << "wgmma's waits";
  EXPECT_NE(r.out.find("Stalls      barrier 31 %"), std::string::npos) << r.out;
}

// The full set's instruction mix is in its per-opcode metrics, whose instances ncu exports with
// --print-metric-instances details. Our SGEMM (2048³, an H100): 2048³ FFMAs of 14.5e9 thread
// instructions a launch. Exported without them, the same kind of file has no mix.
TEST(CliAnalyze, AFullSetWithItsInstancesGivesTheInstructionMix) {
  const auto dir = fresh_dir("ncu_full_mix");
  auto r = run_cli({"analyze", "--out", dir.string(), (source_dir() / "tests/fixtures/ncu_full_instances_sgemm_h100.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto analysis = nlohmann::json::parse(read_file(dir / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  const auto& mix = analysis["stalls"]["instruction_mix"];
  double sum = 0;
  for (const auto& [category, f] : mix.items()) sum += f.get<double>();
  EXPECT_NEAR(sum, 1, 1e-5) << mix;  // each written to six digits
  EXPECT_NEAR(mix["fp32"].get<double>(), 8589934592.0 / 14487519232, 1e-6) << mix;
  EXPECT_NE(r.out.find("mix fp32 59 % integer 25 % load_store 10 %"), std::string::npos) << r.out;

  const auto plain = fresh_dir("ncu_full_no_mix");
  r = run_cli({"analyze", "--out", plain.string(), (source_dir() / "tests/fixtures/ncu_import_raw_full_torch_roofline.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(read_file(plain / "analysis.json"))["stalls"]["instruction_mix"].empty());
}

// A file that does not record its GPU (ncu's older CSV layout, rocprofv3's CSV without
// agent_info.csv, a rocprof-compute workload without sysinfo.csv) is given one with --arch. On
// the real A100 file of a PyTorch BERT's attention, the occupancy of each kernel is then ncu's own
// theoretical occupancy, recorded in the same file: 25 % for FlashAttention's kernel and CUTLASS's
// WMMA GEMM (33 KB of shared memory), 62.5 % for the uniform fill, 75 % for the normal fill (37
// registers), 100 % for the split-K reduction.
TEST(CliAnalyze, ArchGivesTheGpuATraceDoesNotRecord) {
  const auto real = source_dir() / "tests/fixtures/real";
  const auto a100 = (real / "ncu-leleucas-a100/bert_flashattn_nsight.csv").string();
  auto unknown = run_cli({"analyze", a100});
  ASSERT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_NE(unknown.out.find("GPU         not known"), std::string::npos) << unknown.out;
  auto analyzed = [](std::vector<std::string> args) {
    args.insert(args.begin(), {"analyze", "--json"});
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(schema_errors(r.out, "profile"), "");
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  auto has = [](const nlohmann::json& j, const std::string& text) {
    for (const auto& w : j["warnings"]) {
      if (w.get<std::string>().find(text) != std::string::npos) return true;
    }
    return false;
  };
  for (const auto& [kernel, occupancy] : std::vector<std::pair<std::string, double>>{{"fmha_fwd_loop_kernel", 0.25},
                                                                                    {"gemm_f16_32x32", 0.25},
                                                                                    {"distribution", 0.625},
                                                                                    {"normal_and_transform", 0.75},
                                                                                    {"splitKreduce", 1.0}}) {
    const auto j = analyzed({"--arch", "sm_80", "--kernel", kernel, a100});
    EXPECT_EQ(j["gpu"]["architecture"], "sm_80");
    EXPECT_DOUBLE_EQ(j["occupancy"]["theoretical"].get<double>(), occupancy) << kernel;
    EXPECT_TRUE(has(j, a100 + ": the trace does not record its GPU: taken as sm_80 (--arch)")) << j["warnings"];
    EXPECT_FALSE(has(j, "no CC column")) << "the warning that the GPU is not known gives way";
    EXPECT_FALSE(has(j, "ncu's own theoretical occupancy")) << kernel << " " << j["warnings"];
  }
  // rocprofv3's CSV without agent_info.csv (ROCm 7's layout, with register counts), and a
  // rocprof-compute workload's pmc_perf.csv alone, whose dispatches had no GPU at all.
  const auto csv = analyzed({"--arch", "gfx942", (real / "rocprofiler-sdk-docs").string()});
  EXPECT_EQ(csv["gpu"]["architecture"], "gfx942");
  EXPECT_FALSE(csv["occupancy"].is_null());
  // llama.cpp's decode on a Strix Halo (its CSV without agent_info.csv): its 40 CUs, and the
  // occupancy of its kernel's 32 VGPRs, which bind nothing (16 waves a SIMD).
  const auto strix = analyzed({"--arch", "gfx1151", (real / "rocprofv3-strixhalo-gfx1151/decode_kernel_trace.csv").string()});
  EXPECT_EQ(strix["gpu"]["compute_units"], 40);
  EXPECT_EQ(strix["occupancy"]["waves_per_simd"], 16) << "32 VGPRs, wave32: the 16-wave cap";
  const auto dir = fresh_dir("analyze_arch");
  fs::copy_file(real / "rocprofiler-compute-mi300x/pmc_perf.csv", dir / "pmc_perf.csv");
  EXPECT_EQ(analyzed({(dir / "pmc_perf.csv").string()})["gpu"]["architecture"], "");
  const auto workload = analyzed({"--arch", "gfx942", (dir / "pmc_perf.csv").string()});
  EXPECT_EQ(workload["gpu"]["architecture"], "gfx942");
  EXPECT_FALSE(has(workload, "no sysinfo.csv beside it")) << workload["warnings"];
  // A GPU the trace records is its own; --arch is not used for it, and says so.
  const auto b200 = (real / "ncu-superbench-b200/cublaslt_ncu.log").string();
  const auto recorded = analyzed({"--arch", "sm_80", b200});
  EXPECT_EQ(recorded["gpu"]["architecture"], "sm_100");
  EXPECT_TRUE(has(recorded, b200 + " (sm_100) records its GPU: --arch sm_80 is not used for it")) << recorded["warnings"];
  EXPECT_EQ(analyzed({"--arch", "gfx942", b200})["gpu"]["architecture"], "sm_100") << "the other vendor's, unused: no error";
  // Bad input: one line, exit code 2.
  for (const auto& [arch, said] : std::vector<std::pair<std::string, std::string>>{
           {"sm_999", "unknown architecture 'sm_999' (known: gfx1030,"},
           {"gfx942", "--arch gfx942 is an architecture of AMD's, and " + a100 + " was recorded on an NVIDIA GPU"}}) {
    auto r = run_cli({"analyze", "--arch", arch, a100});
    EXPECT_EQ(r.exit_code, 2) << arch;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// The same A100 file was made with a roofline recipe's --metrics: FP instruction counts and the
// tensor pipe's instructions, not its operations. A kernel that ran no tensor instruction is placed
// (its matrix FLOPs are 0); FlashAttention's kernel, which ran 2,048 of them, is not placed, where
// its other arithmetic alone had called it memory-bound at 0.5 % of the DRAM roof.
TEST(CliAnalyze, ARooflineRecipesFileIsPlacedOnlyWhereItsTensorWorkIsKnown) {
  const auto dir = fresh_dir("analyze_recipe");
  write_text(dir / "a100.json", R"({"flops_per_s": {"fp32": 19.5e12, "fp64": 9.7e12, "fp16": 78e12, "matrix_fp16": 312e12,
                                    "matrix_tf32": 156e12, "matrix_fp64": 19.5e12}, "bytes_per_s": {"dram": 1.555e12}})");
  auto roofline_of = [&](const std::string& kernel) {
    auto r = run_cli({"analyze", "--json", "--arch", "sm_80", "--ceilings", (dir / "a100.json").string(), "--kernel", kernel,
                      (source_dir() / "tests/fixtures/real/ncu-leleucas-a100/bert_flashattn_nsight.csv").string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(schema_errors(r.out, "profile"), "");
    return nlohmann::json::parse(r.out)["roofline"];
  };
  const auto fill = roofline_of("distribution");
  EXPECT_EQ(fill["roofline_position"], "compute_bound") << fill;
  EXPECT_DOUBLE_EQ(fill["flops"]["matrix_fp16"].get<double>(), 0);
  const auto attention = roofline_of("fmha_fwd_loop_kernel");
  EXPECT_TRUE(attention["roofline_position"].is_null()) << attention;
  EXPECT_NE(attention["missing"][0].get<std::string>().find("matrix FLOPs not counted: 2048 matrix-unit instructions ran"),
            std::string::npos)
      << attention["missing"];
}

// An Nsight Compute report (.ncu-rep, found by its first bytes, "NVR" and a NUL) is read through ncu
// --import: here a stand-in ncu that prints what ncu printed of a real report, a Triton program's
// (add_kernel, 10 launches after 2 of PyTorch's random fills, on an H200). Its rules come from the
// details page, exported beside the raw page; where that export fails, a warning says so. A report
// ncu refuses, and a report where no ncu is installed, are one line each that says what to do.
TEST(CliAnalyze, AnNsightComputeReportIsReadThroughNcu) {
  const auto dir = fresh_dir("ncu_report");
  const auto report = dir / "triton_add.ncu-rep";
  write_text(report, std::string("NVR\0\2\0\0\0 a report", 18));
  const auto before = read_file(report);
  const std::vector<std::pair<std::string, std::string>> fake_ncu = {
      {"PATH", (source_dir() / "tests/fixtures/fake_ncu_import").string() + ":/usr/bin:/bin"}};
  auto r = run_cli({"analyze", "--json", report.string()}, fake_ncu);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpu"]["product"], "NVIDIA H200");
  EXPECT_EQ(j["kernel"]["short_name"], "add_kernel");
  EXPECT_EQ(j["kernel"]["dispatches"], 10);
  EXPECT_DOUBLE_EQ(j["kernel"]["total_ms"].get<double>(), 0.454336) << "as analyze read the report on the H200";
  EXPECT_DOUBLE_EQ(j["occupancy"]["theoretical"].get<double>(), 1.0);
  auto judged = run_cli({"analyze", "--out", (dir / "out").string(), report.string()}, fake_ncu);
  ASSERT_EQ(judged.exit_code, 0) << judged.err;
  EXPECT_NE(judged.out.find("Bottleneck  memory_bandwidth_bound"), std::string::npos)
      << "the report's raw page has ncu's DRAM speed of light, 82-84 %: " << judged.out;
  EXPECT_NE(j["warnings"][0].get<std::string>().find(report.string() + ": Nsight Compute profiles"), std::string::npos)
      << "the report is named, not an export of it: " << j["warnings"][0];
  EXPECT_EQ(run_cli({"analyze", "--json", dir.string()}, fake_ncu).out, r.out) << "a folder of reports; same bytes";
  EXPECT_EQ(read_file(report), before) << "the report is left as it was";
  const auto warnings = j["warnings"].dump();
  EXPECT_NE(warnings.find(report.string() + ": no details page (") , std::string::npos) << warnings;
  EXPECT_NE(warnings.find("==ERROR== fake ncu: no details page"), std::string::npos) << "ncu's own words: " << warnings;
  EXPECT_NE(warnings.find(report.string() + ": no instructions by opcode (") , std::string::npos) << warnings;
  EXPECT_NE(warnings.find("==ERROR== fake ncu: no opcodes page"), std::string::npos) << "ncu's own words: " << warnings;
  EXPECT_TRUE(nlohmann::json::parse(read_file(dir / "out/analysis.json"))["tool_findings"].empty());

  // A report whose details page ncu exports: its rules are the launches' as the details page's own
  // CSV gives them (tests/fixtures/ncu_details_torch_roofline.csv, beside its raw page).
  const auto torch_dir = dir / "torch";
  fs::create_directories(torch_dir);
  write_text(torch_dir / "torch_roofline.ncu-rep", std::string("NVR\0\2\0\0\0 a report", 18));
  auto torch = run_cli({"analyze", "--kernel", "nvjet_sm90", "--out", (torch_dir / "out").string(),
                        (torch_dir / "torch_roofline.ncu-rep").string()},
                       fake_ncu);
  ASSERT_EQ(torch.exit_code, 0) << torch.err;
  EXPECT_NE(torch.out.find("ncu says    TheoreticalOccupancy (estimated local speedup 81.2 %)"), std::string::npos) << torch.out;
  const auto findings = nlohmann::json::parse(read_file(torch_dir / "out/analysis.json"))["tool_findings"];
  ASSERT_EQ(findings.size(), 3u) << findings;
  EXPECT_EQ(findings[0]["launches"], 3);
  EXPECT_EQ(torch.err.find("details page"), std::string::npos) << torch.err;
  EXPECT_EQ(torch.err.find("instructions by opcode"), std::string::npos) << "the page asked for, of a basic set: " << torch.err;

  write_text(dir / "cut.ncu-rep", std::string("NVR\0 cut short", 14));
  auto refused = run_cli({"analyze", (dir / "cut.ncu-rep").string()}, fake_ncu);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("ncu cannot read this report"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("the file is truncated"), std::string::npos) << "ncu's own words: " << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;

  if (fs::exists("/usr/local/cuda/bin/ncu")) GTEST_SKIP() << "ncu is installed here: no machine without it to try";
  auto no_ncu = run_cli({"analyze", report.string()}, {{"PATH", dir.string()}});
  EXPECT_EQ(no_ncu.exit_code, 3) << no_ncu.err;
  EXPECT_NE(no_ncu.err.find("ncu --import " + report.string() + " --csv --page raw"), std::string::npos) << no_ncu.err;
}

TEST(CliAnalyze, VersionNamesTheCommitAndTheAliasAgrees) {
  auto r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  static const std::regex version(R"(rocm-perf 0\.1\.0 \(commit ([0-9a-f]{12}(-modified)?|unknown)\)\n)");
  EXPECT_TRUE(std::regex_match(r.out, version)) << r.out;
  if (fs::exists(source_dir() / ".git")) {
    EXPECT_EQ(r.out.find("unknown"), std::string::npos) << r.out;
  }
  ProcessOptions p;
  p.argv = {(bin_dir() / "rocm-perf-lab").string(), "--version"};
  p.capture_output = true;
  auto alias = run_process(p);
  EXPECT_EQ(alias.exit_status, 0);
  EXPECT_EQ(alias.output, r.out);
}

}  // namespace
}  // namespace rpl::test
