// roofline.json and profile.json's roofline from analyze, --ceilings, and the refusals.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

TEST(CliRoofline, AnalyzeWritesRooflineJsonAndTheDominantKernelsRecord) {
  const auto dir = fresh_dir("cli_roofline");
  const auto db = scenario("h100-roofline", 1, dir);
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Roofline    compute-bound, 91.7 % of the fp32 roof"), std::string::npos) << r.out;
  // The summary ends with the bottleneck, its reasons and what to try first.
  EXPECT_NE(r.out.find("Bottleneck  compute_bound (confidence 0.84)\n            why: compute-bound: 61.36 TFLOP/s = 91.7 % "
                       "of the fp32 roof\n            try first: move the arithmetic to tensor cores"),
            std::string::npos)
      << r.out;
  const auto analysis = nlohmann::json::parse(read_text(dir / "out" / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  EXPECT_EQ(analysis["classification"]["bottleneck"], "compute_bound");
  EXPECT_EQ(analysis["classification"]["roofline_position"], "compute_bound");
  const std::string text = read_text(dir / "out" / "roofline.json");
  EXPECT_EQ(schema_errors(text, "roofline"), "");
  const auto roofline = nlohmann::json::parse(text);
  EXPECT_EQ(roofline["device"]["architecture"], "sm_90");
  EXPECT_DOUBLE_EQ(roofline["ceilings"]["bytes_per_s"]["dram"].get<double>(), 2 * 2619e6 * 5120 / 8);
  std::map<std::string, nlohmann::json> kernels;
  for (const auto& k : roofline["kernels"]) kernels[k["name"].get<std::string>().substr(0, 5)] = k;
  EXPECT_EQ(kernels["fma_b"]["roofline_position"], "compute_bound");
  EXPECT_DOUBLE_EQ(kernels["fma_b"]["total_flops"].get<double>(), 2 * 2 * 4.0 * 4096 * (1 << 20));
  EXPECT_EQ(kernels["strea"]["roofline_position"], "memory_bound");
  EXPECT_EQ(kernels["triad"]["roofline_position"], "memory_bound");
  EXPECT_NEAR(kernels["triad"]["operational_intensity"].get<double>(), 2.0 / 12.0, 1e-6);

  const auto profile = nlohmann::json::parse(read_text(dir / "out" / "profile.json"));
  EXPECT_EQ(schema_errors(profile.dump(), "profile"), "");
  EXPECT_EQ(profile["roofline"]["name"], "fma_bound(float*, int)");
  EXPECT_EQ(profile["roofline"]["binding_ceiling"], "fp32");

  // --json without --out: the same record in the document on stdout.
  auto j = run_cli({"analyze", "--json", db.string()});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["roofline"], profile["roofline"]);
}

// The counters of a kernel's launches in an ncu file, each summed times the launch's duration
// (ns), and that duration summed: ncu's figures of the kernel, weighted as the roofline weights them.
std::pair<std::map<std::string, double>, double> time_weighted_counters(const fs::path& file, const std::string& kernel_prefix) {
  const auto trace = trace::read_traces({file});
  std::map<std::string, double> weighted;
  double time = 0;
  for (uint32_t i = 0; i < trace.dispatches.size(); ++i) {
    const auto& d = trace.dispatches[i];
    if (!trace.symbols[static_cast<size_t>(d.symbol)].name().starts_with(kernel_prefix)) continue;
    const double ns = static_cast<double>(d.duration_ns());
    time += ns;
    for (const auto& v : trace.counter_values) {
      if (v.dispatch == i) weighted[trace.counter_names[v.counter]] += v.value * ns;
    }
  }
  return {weighted, time};
}

// ncu locks the clock to base unless told otherwise, and cuBLAS's GEMM ran at 1.34 GHz of the H100's
// 1.98 in the real full-set file of a PyTorch program. At the clock it ran at, its place on the
// tensor roof is ncu's own percent of the peak of the bf16 wgmma path, recorded in the same file
// (90 %); against the roof of the maximum clock it was placed at two thirds of that.
TEST(CliRoofline, AKernelIsPlacedAgainstTheRoofOfTheClockItRanAt) {
  const auto file = source_dir() / "tests/fixtures/ncu_import_raw_full_torch_roofline.csv";
  const auto dir = fresh_dir("roofline_clock");
  auto r = run_cli({"analyze", "--out", dir.string(), file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto roofline = nlohmann::json::parse(read_file(dir / "roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  EXPECT_EQ(roofline["ceilings"]["clock_mhz"], 1980);

  // ncu's own figures of the GEMM's launches, weighted by their durations.
  const std::string ncu_percent = "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum.pct_of_peak_sustained_elapsed";
  auto [weighted, time] = time_weighted_counters(file, "nvjet");
  ASSERT_GT(time, 0);
  ASSERT_TRUE(weighted.count(ncu_percent) && weighted.count("sm__cycles_elapsed.avg.per_second"));
  const nlohmann::json* gemm = nullptr;
  for (const auto& k : roofline["kernels"]) {
    if (k["name"].get<std::string>().starts_with("nvjet")) gemm = &k;
  }
  ASSERT_NE(gemm, nullptr) << roofline;
  const double mhz = weighted["sm__cycles_elapsed.avg.per_second"] / time / 1e6;
  EXPECT_NEAR((*gemm)["clock_mhz"].get<double>(), mhz, 0.5);
  EXPECT_NEAR(mhz, 1343, 2);
  EXPECT_EQ((*gemm)["binding_ceiling"], "matrix_fp16");
  EXPECT_NEAR((*gemm)["percent_of_roof"].get<double>(), weighted[ncu_percent] / time, 0.5) << *gemm;
  EXPECT_NE(r.out.find("measured at 1343 MHz"), std::string::npos) << r.out;
}

// ncu's full set records no count of FP32 instructions, only their rates per cycle elapsed. On its
// real raw page of matmul_tunable at 2048³ (three launches, an H100 at base clock), the count is the
// rate times the cycles elapsed: 2 x 2048³ FLOPs a launch. The SGEMM is compute-bound at ncu's own
// percent of the FP32 peak (its roofline's FLOPs per cycle over its peak per cycle), not memory-bound
// with no arithmetic, as it was placed before.
TEST(CliRoofline, AFullSetGivesTheFp32ArithmeticOfAnSgemm) {
  const auto file = source_dir() / "tests/fixtures/ncu_import_raw_full_sgemm_2048.csv";
  const auto dir = fresh_dir("roofline_full_set_sgemm");
  auto r = run_cli({"analyze", "--out", dir.string(), file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto roofline = nlohmann::json::parse(read_file(dir / "roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  ASSERT_EQ(roofline["kernels"].size(), 1u) << roofline;
  const auto& sgemm = roofline["kernels"][0];
  ASSERT_TRUE(sgemm["flops"]["fp32"].is_number()) << sgemm;
  EXPECT_NEAR(sgemm["flops"]["fp32"].get<double>() / (3 * 2 * std::pow(2048.0, 3)), 1, 1e-6) << sgemm;
  EXPECT_EQ(sgemm["flops"]["fp64"], 0);
  EXPECT_EQ(sgemm["roofline_position"], "compute_bound");
  EXPECT_EQ(sgemm["binding_ceiling"], "fp32");

  auto weighted = time_weighted_counters(file, "void sgemm_tiled").first;
  auto rate = [&](const std::string& op) {
    return weighted["smsp__sass_thread_inst_executed_op_" + op + "_pred_on.sum.per_cycle_elapsed"];
  };
  const double peak = 2 * weighted["sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"];
  ASSERT_GT(peak, 0);
  const double ncu_percent = 100 * (rate("fadd") + rate("fmul") + 2 * rate("ffma")) / peak;
  EXPECT_NEAR(ncu_percent, 33.5, 0.1);
  EXPECT_NEAR(sgemm["percent_of_roof"].get<double>(), ncu_percent, 0.5) << sgemm;
  EXPECT_NE(r.out.find("Roofline    compute-bound, 33.7 % of the fp32 roof"), std::string::npos) << r.out;
}

TEST(CliRoofline, CeilingsFileOverridesAndABadOneIsOneLine) {
  const auto dir = fresh_dir("cli_ceilings");
  const auto db = scenario("h100-roofline", 1, dir);
  std::ofstream(dir / "measured.json") << R"({"flops_per_s": {"fp32": 1.0e14}})";
  auto r = run_cli({"analyze", "--json", "--ceilings", (dir / "measured.json").string(), db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  // 2 launches x 2^35 FLOPs in 2 x 560 us: 61.4 TFLOP/s of 100.
  EXPECT_NEAR(doc["roofline"]["percent_of_roof"].get<double>(), 61.36, 0.01);

  std::ofstream(dir / "bad.json") << R"({"flops_per_s": {"fp32": "fast"}})";
  auto bad = run_cli({"analyze", "--json", "--ceilings", (dir / "bad.json").string(), db.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("bad.json"), std::string::npos);
}

TEST(CliRoofline, TraceWithoutCountersHasNoRecordAndSaysWhy) {
  const auto dir = fresh_dir("cli_roofline_none");
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), scenario("mi300x", 1, dir).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto roofline = nlohmann::json::parse(read_text(dir / "out" / "roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  ASSERT_EQ(roofline["warnings"].size(), 1u);
  EXPECT_NE(roofline["warnings"][0].get<std::string>().find("--roofline"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(read_text(dir / "out" / "profile.json"))["roofline"].is_null());
  EXPECT_EQ(r.out.find("Roofline"), std::string::npos);
}

// AMD: one rocprofv3 --pmc run per counter group of the architecture's recipe (the stand-in
// rocprofv3 reports every counter at 1000 per dispatch), stored in the first run's database.
TEST(CliRoofline, AmdCounterPassesPerGroupEndInTheTrace) {
  const auto dir = fresh_dir("cli_roofline_amd");
  const auto log = dir / "rocprofv3.log";
  auto r = run_cli({"profile", "--backend", "rocm", "--roofline", "--runs", "2", "--out", (dir / "out").string(), "--",
                    "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_LOG", log.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> passes;
  std::istringstream calls(read_text(log));
  for (std::string line; std::getline(calls, line);) {
    auto argv = nlohmann::json::parse(line).get<std::vector<std::string>>();
    if (argv[1] != "--pmc") continue;
    std::vector<std::string> counters;
    for (size_t i = 2; argv[i] != "--output-format"; ++i) counters.push_back(argv[i]);
    passes.push_back(counters);
  }
  // rocprof-compute's groups for gfx942 (reference/rocm.md §5).
  ASSERT_EQ(passes.size(), 4u);
  EXPECT_EQ(passes[0].size(), 8u);  // VALU F16 and F32
  EXPECT_NE(std::find(passes[1].begin(), passes[1].end(), "TCC_BUBBLE_sum"), passes[1].end());
  EXPECT_NE(std::find(passes[2].begin(), passes[2].end(), "SQ_LDS_IDX_ACTIVE"), passes[2].end());
  EXPECT_EQ(passes[3], std::vector<std::string>{"SQ_INSTS_VALU_MFMA_MOPS_F8"});

  const auto roofline = nlohmann::json::parse(read_text(dir / "out" / "roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  const auto& matmul = roofline["kernels"][1];
  ASSERT_EQ(matmul["name"], "matmul_kernel(float const*, float const*, float*, int, int, int)");
  ASSERT_EQ(matmul["measured_dispatches"], 40);
  // Per dispatch: every VALU counter 1000, x64 lanes (FMA x128), per type: 64k x 5 = 320,000.
  EXPECT_DOUBLE_EQ(matmul["flops"]["fp32"].get<double>(), 40 * 320'000.0);
  // MI300 HBM: 1000 x (64 - 32 + 64 + 32 + 32) = 160,000 bytes per dispatch.
  EXPECT_DOUBLE_EQ(matmul["bytes"]["dram"].get<double>(), 40 * 160'000.0);
  EXPECT_FALSE(matmul["roofline_position"].is_null());
}

TEST(CliRoofline, AFailingAmdPassIsOneLineNamingItsLog) {
  const auto dir = fresh_dir("cli_roofline_amd_fail");
  auto r = run_cli({"profile", "--backend", "rocm", "--roofline", "--runs", "1", "--out", (dir / "out").string(), "--",
                    "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"},
                    {"RPL_FAKE_ROCPROF_LOG", (dir / "log").string()},
                    {"RPL_FAKE_ROCPROF_PMC_FAIL", "2"}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("counter pass 2 of 4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pass.log"), std::string::npos) << r.err;
}

TEST(CliRoofline, Gfx1030HasNoPassesAndTheProfileStillCompletes) {
  const auto dir = fresh_dir("cli_roofline_rdna");
  auto r = run_cli({"profile", "--backend", "rocm", "--roofline", "--runs", "1", "--out", (dir / "out").string(), "--",
                    "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"},
                    {"RPL_FAKE_ROCPROF_LOG", (dir / "log").string()},
                    {"RPL_FAKE_ROCPROF_SCENARIO", "rx6900xt"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gfx1030 has no counter formulas for the roofline"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(dir / "log").find("--pmc"), std::string::npos);
}

// AMD --deep: a rocprofv3 --att pass of the dominant kernel (the stand-in writes a small decoded
// trace), kept under .rocpd_profile/att/ and read into analysis.json.
TEST(CliRoofline, AmdDeepRunsAThreadTraceOfTheDominantKernel) {
  const auto dir = fresh_dir("cli_deep_amd");
  const auto log = dir / "rocprofv3.log";
  auto r = run_cli({"profile", "--backend", "rocm", "--deep", "--att-target-cu", "3", "--runs", "1", "--out",
                    (dir / "out").string(), "--", "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_LOG", log.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> att;
  std::istringstream calls(read_text(log));
  for (std::string line; std::getline(calls, line);) {
    auto argv = nlohmann::json::parse(line).get<std::vector<std::string>>();
    if (argv[1] == "--att") att = argv;
  }
  ASSERT_FALSE(att.empty());
  EXPECT_EQ(att[3], "3");
  EXPECT_EQ(att[5], "^matmul_kernel\\(float const\\*, float const\\*, float\\*, int, int, int\\)$")
      << "the dominant kernel, as a regular expression";
  EXPECT_TRUE(fs::exists(dir / "out" / ".rocpd_profile" / "att" / "code.json"));
  const auto analysis = nlohmann::json::parse(read_text(dir / "out" / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  EXPECT_NEAR(analysis["stalls"]["instruction_mix"]["mfma"].get<double>(), 16.0 / 24.0, 1e-6);
  EXPECT_NE(r.out.find("Stalls      memory_dependency"), std::string::npos) << r.out;

  auto empty = run_cli({"profile", "--backend", "rocm", "--deep", "--runs", "1", "--out", (dir / "empty").string(), "--",
                        "/bin/true"},
                       {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_ATT_EMPTY", "1"}});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_EQ(count_lines(empty.err), 1) << empty.err;
  EXPECT_NE(empty.err.find("--att-target-cu"), std::string::npos) << empty.err;
}

// A rocprofv3 kernel trace (ROCm 7 layout) of two kernels: `first` runs 3 times for 1000 us,
// `second` once for `second_us`.
fs::path two_kernel_trace(const fs::path& dir, const std::string& first, const std::string& second, int second_us) {
  fs::create_directories(dir);
  std::ofstream out(dir / "4001_kernel_trace.csv");
  out << "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\","
         "\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
         "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  int64_t t = 1'000'000;
  for (int i = 1; i <= 4; ++i) {
    const bool last = i == 4;
    const int64_t us = last ? second_us : 1000;
    out << "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,7," << i << "," << (last ? 2 : 1) << ",\"" << (last ? second : first) << "\"," << i << "," << t << ","
        << t + us * 1000 << ",0,0,64,0,32,256,1,1,65536,1,1\n";
    t += us * 1000 + 500;
  }
  return dir;
}

// A thread-trace (or PC-sampling) folder belongs to the kernel its code.json names: attached to
// that kernel, refused where the trace has no such kernel, and never reported as another kernel's.
TEST(CliRoofline, AnalyzeTakesAnAmdThreadTraceFolderOfItsKernel) {
  const auto dir = fresh_dir("cli_att");
  const auto att = source_dir() / "tests/fixtures/real/rocprof-compute-viewer/pcsampling";
  const std::string gemm = "void reference_gemm<4>(unsigned char const*, unsigned char const*, __hip_bfloat16*, float const*, float const*, int, int, int)";
  const auto traced = two_kernel_trace(dir / "gemm", gemm, "other(int)", 10);
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), "--att", att.string(), traced.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Stalls      "), std::string::npos) << r.out;
  const auto analysis = nlohmann::json::parse(read_text(dir / "out" / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  EXPECT_GT(analysis["stalls"]["instruction_mix"]["mfma"].get<double>(), 0);
  EXPECT_EQ(analysis["stalls"]["hot_instructions"].size(), 10u);

  // Of another kernel of the trace: said, and its stalls are given as that kernel's, not this one's.
  const auto other = two_kernel_trace(dir / "other", "other(int)", gemm, 10);
  auto o = run_cli({"analyze", "--out", (dir / "out_other").string(), "--att", att.string(), other.string()});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("traced " + gemm + ", not the analyzed kernel other(int); its stalls are given as that kernel's"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("Stalls of   " + gemm + " (its thread trace; not the kernel above)"), std::string::npos) << o.out;
  const auto other_analysis = nlohmann::json::parse(read_text(dir / "out_other" / "analysis.json"));
  EXPECT_EQ(schema_errors(other_analysis.dump(), "analysis"), "");
  EXPECT_TRUE(other_analysis["stalls"].is_null()) << other_analysis["stalls"].dump();
  EXPECT_EQ(other_analysis["classification"]["kernel"], "other(int)");
  EXPECT_EQ(other_analysis["other_kernel_stalls"]["kernel"], gemm);
  EXPECT_EQ(other_analysis["other_kernel_stalls"]["stalls"], analysis["stalls"]) << "the stalls the same folder gives its own kernel";

  // A code.json without its marker row: the dispatch its folder names says which kernel it is.
  auto code = nlohmann::json::parse(read_text(att / "code.json"));
  code["code"].erase(code["code"].begin());
  const auto unnamed = dir / "node01" / "ui_output_agent_7_dispatch_4";
  fs::create_directories(unnamed);
  std::ofstream(unnamed / "code.json") << code.dump();
  auto by_dispatch = run_cli({"analyze", "--out", (dir / "out_dispatch").string(), "--att", unnamed.string(), traced.string()});
  ASSERT_EQ(by_dispatch.exit_code, 0) << by_dispatch.err;
  EXPECT_NE(by_dispatch.err.find("traced other(int), not the analyzed kernel"), std::string::npos) << by_dispatch.err;
  EXPECT_NE(by_dispatch.err.find("its stalls are not read (the thread trace recorded no wave of other(int)"), std::string::npos)
      << "gemm's instructions under another dispatch's name: no wave of other(int); the analysis goes on\n" << by_dispatch.err;

  // Of a kernel in no dispatch of the trace: an error naming both, nothing written.
  const auto db = scenario("mi300x", 1, dir);
  auto mismatch = run_cli({"analyze", "--out", (dir / "o3").string(), "--att", att.string(), db.string()});
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_EQ(count_lines(mismatch.err), 1) << mismatch.err;
  EXPECT_NE(mismatch.err.find("traced " + gemm + ", which is in no dispatch of the trace"), std::string::npos) << mismatch.err;
  EXPECT_NE(mismatch.err.find("matmul_kernel"), std::string::npos) << mismatch.err;
  EXPECT_FALSE(fs::exists(dir / "o3" / "dag.json")) << "nothing half written";

  auto without_out = run_cli({"analyze", "--att", att.string(), traced.string()});
  EXPECT_EQ(without_out.exit_code, 2);
  auto missing = run_cli({"analyze", "--out", (dir / "o2").string(), "--att", (dir / "nothing").string(), db.string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(count_lines(missing.err), 1) << missing.err;
  EXPECT_NE(missing.err.find("no code.json"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir / "o2" / "dag.json")) << "nothing half written";
}

// ncu's source view (recorded on an H100, tests/fixtures/ncu_source_triton_add_cuda_sass.csv): the
// hottest lines and instructions go into analysis.json and the summary; a file that is not one is
// refused before anything is written.
TEST(CliRoofline, AnalyzeTakesAnNcuSourceView) {
  const auto dir = fresh_dir("cli_ncu_source");
  const auto db = scenario("h100-roofline", 1, dir);
  const auto view = source_dir() / "tests/fixtures/ncu_source_triton_add_cuda_sass.csv";
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), "--ncu-source", view.string(), db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hot lines triton_add.py:11 90 %, triton_add.py:9 10 %"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hottest instruction +0x"), std::string::npos) << r.out;
  const auto analysis = nlohmann::json::parse(read_text(dir / "out" / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  EXPECT_EQ(analysis["stalls"]["hot_lines"][0]["line"], 11);
  EXPECT_EQ(analysis["stalls"]["hot_instructions"].size(), 10u);
  EXPECT_TRUE(analysis["stalls"]["hot_instructions"][0]["reason"].is_string());

  for (const auto& [bad, message] : std::vector<std::pair<fs::path, std::string>>{
           {dir / "nothing.csv", "not a file"}, {source_dir() / "tests/fixtures/ncu_raw_softmax.csv", "not an ncu source view"}}) {
    auto refused = run_cli({"analyze", "--out", (dir / "o2").string(), "--ncu-source", bad.string(), db.string()});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_EQ(count_lines(refused.err), 1) << refused.err;
    EXPECT_NE(refused.err.find(message), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(dir / "o2" / "dag.json")) << "nothing half written";
  }
}

}  // namespace
}  // namespace rpl::test
