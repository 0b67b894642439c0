// dag.json from analyze --out and profile: schema, the known critical path, same bytes, bad options.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

TEST(CliDag, AnalyzeOutWritesDagJsonWithTheDesignedCriticalPath) {
  const auto dir = fresh_dir("cli_dag");
  const auto db = scenario("multistream", 1, dir);
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DAG         critical path 2.000 ms through 13 of 18 GPU operations (2.000 ms span)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("            branch_long holds 60.0 % of it; twice as fast it would save 0.600 ms"), std::string::npos) << r.out;
  const std::string text = read_text(dir / "out" / "dag.json");
  EXPECT_EQ(schema_errors(text, "dag"), "");
  const auto dag = nlohmann::json::parse(text);
  EXPECT_EQ(dag["critical_path_ns"], 2'000'000);
  EXPECT_EQ(dag["edges"]["event"], 16);
  EXPECT_EQ(dag["edges"]["host_sync"], 3);
  EXPECT_EQ(dag["processes"][0]["dependencies"], "recorded");
  EXPECT_EQ(dag["critical_path"]["count"], 13);
  EXPECT_EQ(dag["critical_path"]["items"][0]["kind"], "copy");
  EXPECT_EQ(dag["critical_path"]["items"][2]["name"], "branch_long(float*)");
  EXPECT_EQ(dag["critical_path"]["items"][2]["via"], "event");
  EXPECT_EQ(dag["kernels"][0]["impact"]["saved_ns"], 600'000);
  EXPECT_EQ(dag["slack"]["count"], 18);

  auto again = run_cli({"analyze", "--out", (dir / "again").string(), db.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(dir / "again" / "dag.json"), text);
}

// An AMD trace with the HIP API calls (tests/fixtures/rocpd_v3_hip_api.sql): its dependencies are recorded.
TEST(CliDag, AmdTraceTakesItsDependenciesFromTheHipCalls) {
  const auto dir = fresh_dir("cli_dag_hip");
  const auto db = database_from_sql("rocpd_v3_hip_api.sql", dir);
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_text(dir / "out" / "dag.json");
  EXPECT_EQ(schema_errors(text, "dag"), "");
  const auto dag = nlohmann::json::parse(text);
  EXPECT_EQ(dag["processes"][0]["dependencies"], "recorded");
  EXPECT_EQ(dag["edges"]["event"], 2);
  EXPECT_EQ(dag["edges"]["inferred"], 0);
  EXPECT_EQ(dag["critical_path_ns"], 140'000);
  EXPECT_EQ(dag["critical_path"]["items"][1]["name"], "consume(float*)");
  EXPECT_EQ(dag["critical_path"]["items"][1]["via"], "event");
  EXPECT_NE(r.err.find("recording"), std::string::npos) << "the wait on an event never recorded is reported: " << r.err;
}

TEST(CliDag, InferenceThresholdOption) {
  const auto dir = fresh_dir("cli_dag_infer");
  const auto db = scenario("mi300x", 1, dir);  // no event operations: dependencies inferred
  auto r = run_cli({"analyze", "--out", (dir / "out").string(), "--dag-infer-threshold-us", "0", db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto dag = nlohmann::json::parse(read_text(dir / "out" / "dag.json"));
  EXPECT_EQ(schema_errors(dag.dump(), "dag"), "");
  EXPECT_EQ(dag["inference_threshold_ns"], 0);
  EXPECT_EQ(dag["edges"]["inferred"], 0);
  EXPECT_EQ(dag["processes"][0]["dependencies"], "inferred");
  EXPECT_NE(r.out.find("cross-stream dependencies inferred"), std::string::npos);

  auto bad = run_cli({"analyze", "--out", (dir / "bad").string(), "--dag-infer-threshold-us", "-1", db.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "bad" / "dag.json"));
}

// Without --out the summary still ends with what limits the kernel; --json prints profile.json
// alone, and no folder's document is written.
TEST(CliDag, WithoutOutTheSummaryStillEndsWithTheCriticalPathAndTheBottleneck) {
  const auto dir = fresh_dir("cli_dag_none");
  const auto db = scenario("multistream", 1, dir);
  auto r = run_cli({"analyze", db.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nDAG         critical path "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nBottleneck  "), std::string::npos) << r.out;
  auto j = run_cli({"analyze", "--json", db.string()});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(schema_errors(j.out, "profile"), "");
  EXPECT_FALSE(nlohmann::json::parse(j.out).contains("dag"));
  EXPECT_FALSE(fs::exists(dir / "dag.json"));
}

}  // namespace
}  // namespace rpl::test
