// rocm-perf diff: what changed per kernel, judged against both profiles' noise; the CI gate; bad input.
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// Two profiles made with the stand-in rocprofv3: the mi300x scenario, and the same program with
// softmax 30 % slower and reduce_rows 20 % faster.
struct TwoProfiles {
  fs::path dir = fresh_dir("diff");
  fs::path before = dir / "before", after = dir / "after";
  TwoProfiles() {
    for (const auto& [out, scenario] : {std::pair{before, "mi300x"}, std::pair{after, "mi300x-after"}}) {
      auto r = run_cli({"profile", "--runs", "3", "--out", out.string(), "--", "/bin/true"},
                       {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_SCENARIO", scenario}});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
  }
};

const json& kernel(const json& doc, const std::string& prefix) {
  for (const auto& k : doc["kernels"]) {
    if (k["name"].get<std::string>().rfind(prefix, 0) == 0) return k;
  }
  throw std::runtime_error("no kernel " + prefix);
}

TEST(CliDiff, FindsTheKernelsThatChangedBeyondTheNoise) {
  TwoProfiles p;
  auto r = run_cli({"diff", "--json", p.before.string(), p.after.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "diff"), "");
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["before"]["runs"], 3);
  const auto& softmax = kernel(doc, "softmax_kernel");
  EXPECT_EQ(softmax["verdict"], "slower");
  EXPECT_NEAR(softmax["change_pct"].get<double>(), 30.0, 2.0);
  EXPECT_LT(softmax["noise_pct"].get<double>(), 10.0);
  EXPECT_EQ(kernel(doc, "reduce_rows")["verdict"], "faster");
  EXPECT_NEAR(kernel(doc, "reduce_rows")["change_pct"].get<double>(), -20.0, 2.0);
  EXPECT_EQ(kernel(doc, "matmul_kernel")["verdict"], "unchanged");
  EXPECT_EQ(kernel(doc, "matmul_kernel")["before"]["occupancy"], kernel(doc, "matmul_kernel")["after"]["occupancy"]);
  EXPECT_TRUE(kernel(doc, "matmul_kernel")["before"]["occupancy"].is_number()) << "the dominant kernel's occupancy";
  for (size_t i = 1; i < doc["kernels"].size(); ++i) {
    EXPECT_GE(doc["kernels"][i - 1]["before"]["per_run_ms"], doc["kernels"][i]["before"]["per_run_ms"]) << "most time first";
  }
  EXPECT_TRUE(doc["regressions"].empty());

  auto text = run_cli({"diff", p.before.string(), p.after.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\nsoftmax_kernel "), std::string::npos) << "short names by default: " << text.out;
  EXPECT_EQ(text.out.find("softmax_kernel(float*, int, int)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("slower"), std::string::npos);
  EXPECT_NE(text.out.find("occupancy"), std::string::npos);
  for (const auto& k : doc["kernels"]) EXPECT_EQ(k["short_name"].get<std::string>().find('('), std::string::npos) << k;
  auto full = run_cli({"diff", "--names", "full", p.before.string(), p.after.string()});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(full.out.find("softmax_kernel(float*, int, int)"), std::string::npos) << full.out;
  EXPECT_NE(full.out.find("\nmatmul_kernel(float const*, float const*, float*, int, int, int)\n"), std::string::npos)
      << "a long name is printed whole, on a line of its own";
  auto bad = run_cli({"diff", "--names", "medium", p.before.string(), p.after.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(count_lines(bad.err), 1) << bad.err;
}

TEST(CliDiff, FailOnRegressionGatesOnlyBeyondItsThreshold) {
  TwoProfiles p;
  auto strict = run_cli({"diff", "--fail-on-regression", "10", p.before.string(), p.after.string()});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.err.find("regression: softmax_kernel is 30"), std::string::npos) << strict.err;
  auto loose = run_cli({"diff", "--fail-on-regression", "50", p.before.string(), p.after.string()});
  EXPECT_EQ(loose.exit_code, 0) << loose.err;
  auto same = run_cli({"diff", "--fail-on-regression", "0", p.before.string(), p.before.string()});
  EXPECT_EQ(same.exit_code, 0) << "a profile against itself changes nothing: " << same.out;
}

TEST(CliDiff, DifferentGpusWarnButStillCompare) {
  TwoProfiles p;
  const auto other = p.dir / "other";
  auto r = run_cli({"profile", "--runs", "1", "--out", other.string(), "--", "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_SCENARIO", "rx6900xt"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = run_cli({"diff", "--json", p.before.string(), other.string()});
  EXPECT_EQ(schema_errors(j.out, "diff"), "") << "added and removed kernels have null sides";
  auto d = run_cli({"diff", p.before.string(), other.string()});
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.err.find("different GPUs"), std::string::npos) << d.err;
  EXPECT_NE(d.out.find("added"), std::string::npos);
  EXPECT_NE(d.out.find("removed"), std::string::npos);
}

// ncu's details page names no product (the sm_90 table's H100 SXM stands in), its raw page of the
// same program the H200 it ran on: the same architecture, so no different GPUs.
TEST(CliDiff, AProductTheTraceDoesNotNameDiffersFromNoneOfItsArchitecture) {
  const auto fixtures = source_dir() / "tests/fixtures";
  auto d = run_cli({"diff", (fixtures / "ncu_details_torch_roofline.csv").string(), (fixtures / "ncu_raw_torch_roofline.csv").string()});
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.err.find("different GPUs"), std::string::npos) << d.err;
  // The details page names no product: no stand-in is printed as if it had.
  EXPECT_NE(d.out.find("ncu_details_torch_roofline.csv (1 run, sm_90, product not recorded)"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("ncu_raw_torch_roofline.csv (1 run, NVIDIA H200 (sm_90))"), std::string::npos) << d.out;
  auto j = run_cli({"diff", "--json", (fixtures / "ncu_details_torch_roofline.csv").string(),
                    (fixtures / "ncu_raw_torch_roofline.csv").string()});
  EXPECT_EQ(json::parse(j.out)["before"]["gpu"], "sm_90, product not recorded") << j.out;
  auto other = run_cli({"diff", (fixtures / "ncu_raw_torch_roofline.csv").string(),
                        (fixtures / "real/ncu-superbench-b200/cublaslt_ncu.log").string()});
  EXPECT_NE(other.err.find("different GPUs"), std::string::npos) << "sm_90 and sm_100: " << other.err;
}

// A kernel that ran once a side has no noise measured: any change counts, and the run says so.
TEST(CliDiff, AChangeWithNoNoiseMeasuredIsSaidToBeJudgedSo) {
  const auto dir = fresh_dir("diff_single");
  for (const auto& [side, end] : {std::pair{"before", "2000000"}, std::pair{"after", "2010000"}}) {
    fs::create_directories(dir / side);
    std::ofstream(dir / side / "results.csv") << "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\","
                                                 "\"grd\",\"wgr\",\"lds\",\"BeginNs\",\"EndNs\"\n"
                                              << "0,\"k\",8,0,0,1,1,64,64,0,1000000," << end << "\n";
  }
  auto r = run_cli({"diff", "--json", (dir / "before").string(), (dir / "after").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  EXPECT_EQ(kernel(doc, "k")["verdict"], "slower");
  EXPECT_TRUE(kernel(doc, "k")["noise_pct"].is_null());
  EXPECT_NE(doc["warnings"].dump().find("1 kernel was judged faster or slower with no noise measured"), std::string::npos) << doc["warnings"];
  EXPECT_EQ(run_cli({"diff", "--json", (dir / "before").string(), (dir / "before").string()}).out.find("no noise measured"),
            std::string::npos)
      << "nothing changed: nothing to say";
}

TEST(CliDiff, BadInputIsOneLineAndExitTwo) {
  const auto dir = fresh_dir("diff_bad");
  fs::create_directories(dir / "empty");
  std::ofstream(dir / "not.json") << "{ nope";
  std::ofstream(dir / "wallclock.json") << R"({"kernel": null, "runtime_ms": 1.0})";
  std::ofstream(dir / "name_a_number.json") << R"({"kernel": {"name": 5, "total_ms": 1}, "stability": {"runs": 1}})";
  fs::create_directories(dir / "gpu_a_number");
  std::ofstream(dir / "gpu_a_number/profile.json") << R"({"gpu": {"product": 5}, "kernel": {"name": "k", "total_ms": 1}, "stability": {"runs": 1}})";
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"diff", (dir / "empty").string(), (dir / "empty").string()}, "no profile.json here"},
           {{"diff", (dir / "missing").string(), (dir / "empty").string()}, "no such profile folder or file"},
           {{"diff", (dir / "not.json").string(), (dir / "not.json").string()}, "not a JSON document"},
           {{"diff", (dir / "wallclock.json").string(), (dir / "wallclock.json").string()}, "not a rocm-perf profile.json with a kernel"},
           {{"diff", (dir / "name_a_number.json").string(), (dir / "wallclock.json").string()},
            (dir / "name_a_number.json").string() + ": a JSON document here is not as rocm-perf writes it"},
           {{"diff", (dir / "gpu_a_number").string(), (dir / "wallclock.json").string()},
            (dir / "gpu_a_number").string() + ": a JSON document here is not as rocm-perf writes it"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace rpl::test
