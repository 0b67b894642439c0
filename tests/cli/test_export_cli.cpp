// rocm-perf export --format perfetto: the trace-event format's rules, the traces bundled in the
// repository, same bytes twice, and bad output paths.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "trace_event_format.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

json exported(const fs::path& db, const fs::path& out, CliResult* result = nullptr) {
  auto r = run_cli({"export", "--format", "perfetto", db.string(), "-o", out.string()});
  if (result) *result = r;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(out));
}

TEST(CliExport, AmdTraceWithHipCallsKeepsTheFormatsRules) {
  const auto dir = fresh_dir("export_hip");
  const auto db = database_from_sql("rocpd_v3_hip_api.sql", dir);
  CliResult r;
  const auto doc = exported(db, dir / "trace.json", &r);
  EXPECT_EQ(trace_event_errors(doc.dump()), "");
  EXPECT_NE(r.out.find("1 process, 4 tracks, 21 slices, 2 dependency flows, 0 counter events"), std::string::npos) << r.out;
  std::multiset<std::string> cats;
  std::set<std::string> api;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") cats.insert(e["cat"].get<std::string>());
    if (e["ph"] == "X" && e["cat"] == "api") api.insert(e["name"].get<std::string>());
    if (e["ph"] == "X" && e["name"] == "produce(float*)") {
      EXPECT_EQ(e["ts"], 0.9) << "times count from the first operation, hipStreamCreate at 100 ns";
      EXPECT_EQ(e["dur"], 100.0) << "microseconds";
    }
  }
  EXPECT_EQ(cats.count("kernel"), 5u);
  EXPECT_EQ(cats.count("copy"), 1u);
  EXPECT_EQ(cats.count("api"), 15u);
  EXPECT_TRUE(api.count("hipStreamWaitEvent"));
  EXPECT_EQ(doc["otherData"]["time_origin_ns"], 100);
}

TEST(CliExport, BundledH100TraceAndSameBytesTwice) {
  const auto dir = fresh_dir("export_h100");
  const auto db = source_dir() / "examples/traces/softmax_h100.db";
  const auto doc = exported(db, dir / "a.json");
  EXPECT_EQ(trace_event_errors(doc.dump()), "");
  size_t kernels = 0;
  for (const auto& e : doc["traceEvents"]) kernels += e["ph"] == "X" && e["cat"] == "kernel";
  EXPECT_GT(kernels, 0u);
  exported(db, dir / "b.json");
  EXPECT_EQ(read_text(dir / "a.json"), read_text(dir / "b.json"));
}

TEST(CliExport, JsonSaysWhatWasWritten) {
  const auto dir = fresh_dir("export_json");
  auto r = run_cli({"export", "--json", scenario("multistream", 1, dir).string(), "-o", (dir / "t.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "export"), "");
  const auto doc = json::parse(r.out);
  EXPECT_EQ(doc["flows"], 16);
  EXPECT_EQ(doc["output"], (dir / "t.json").string());
}

TEST(CliExport, EventEdgesBecomeFlows) {
  const auto dir = fresh_dir("export_multistream");
  const auto doc = exported(scenario("multistream", 1, dir), dir / "trace.json");
  EXPECT_EQ(trace_event_errors(doc.dump()), "");
  size_t flows = 0;
  for (const auto& e : doc["traceEvents"]) flows += e["ph"] == "s" && e["name"] == "event";
  EXPECT_EQ(flows, 16u) << "the scenario's event edges (host synchronizations are not slices, so draw none)";
}

TEST(CliExport, CounterValuesBecomeCounterTracks) {
  const auto dir = fresh_dir("export_counters");
  const auto doc = exported(scenario("h100-roofline", 1, dir), dir / "trace.json");
  EXPECT_EQ(trace_event_errors(doc.dump()), "");
  std::map<std::string, size_t> counters;
  size_t kernels = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "C") ++counters[e["name"].get<std::string>()];
    kernels += e["ph"] == "X";
  }
  ASSERT_FALSE(counters.empty());
  for (const auto& [name, events] : counters) {
    EXPECT_EQ(events % 2, 0u) << name << ": a value at each dispatch's start, 0 at its end";
    EXPECT_LE(events, 2 * kernels) << name;
  }
}

TEST(CliExport, TraceWithoutDispatchesIsAnEmptyValidExport) {
  const auto dir = fresh_dir("export_empty");
  const std::string suffix = "_0000abcd_1111_7222_8333_444455556666";
  const auto db = database_from_sql("rocpd_v3_hip_api.sql", dir,
                                    "DELETE FROM rocpd_kernel_dispatch" + suffix + "; DELETE FROM rocpd_memory_copy" + suffix +
                                        "; DELETE FROM rocpd_region" + suffix + ";");
  const auto doc = exported(db, dir / "t.json");
  EXPECT_EQ(trace_event_errors(doc.dump()), "");
  for (const auto& e : doc["traceEvents"]) EXPECT_EQ(e["ph"], "M") << e.dump();
}

TEST(CliExport, BadOutputPathsAreRefusedAndTheTraceIsUntouched) {
  const auto dir = fresh_dir("export_bad");
  const auto db = database_from_sql("rocpd_v3_hip_api.sql", dir);
  const std::string before = read_text(db);
  auto same = run_cli({"export", db.string(), "-o", db.string()});
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_NE(same.err.find("is one of the traces read"), std::string::npos) << same.err;
  EXPECT_EQ(read_text(db), before);
  auto nowhere = run_cli({"export", db.string(), "-o", (dir / "no/such/folder/t.json").string()});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_NE(nowhere.err.find("no such folder"), std::string::npos) << nowhere.err;
  auto folder = run_cli({"export", db.string(), "-o", dir.string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("is a folder; give the output file's name"), std::string::npos) << folder.err;
  auto format = run_cli({"export", "--format", "otf2", db.string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "t.json"));
  auto missing = run_cli({"export", (dir / "nothing.db").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(count_lines(missing.err), 1) << missing.err;
  EXPECT_FALSE(fs::exists(dir / "t.json"));
}

}  // namespace
}  // namespace rpl::test
