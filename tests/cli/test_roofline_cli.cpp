// roofline.json and profile.json's roofline from analyze, --ceilings, and the refusals.
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace rpl::test
