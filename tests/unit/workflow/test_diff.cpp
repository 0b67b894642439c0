// workflow::run_diff in-process: profile folders written here (run databases of the stand-in
// scenarios and a profile.json), compared without the CLI.
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/workflow/diff.hpp>

#include "amd_profiler_files.hpp"
#include "nsys_export_file.hpp"
#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

const std::string kMatmul = "matmul_kernel(float const*, float const*, float*, int, int, int)";

// A folder as rocm-perf profile leaves it: three runs of a scenario and a profile.json naming the
// GPU and the dominant kernel with its occupancy.
fs::path write_profile(const fs::path& folder, const std::string& scenario, const std::string& gpu, int runs = 3) {
  fs::create_directories(folder / ".rocpd_profile");
  for (int run = 1; run <= runs; ++run) tools::write_scenario(scenario, run, folder / ".rocpd_profile" / ("run" + std::to_string(run) + ".db"));
  json summary = {{"gpu", {{"product", gpu}, {"architecture", "gfx942"}}},
                  {"kernel", {{"name", kMatmul}, {"total_ms", 6.0}, {"dispatches", 3}}},
                  {"stability", {{"runs", runs}, {"stddev_ms", 0.01}}},
                  {"occupancy", {{"theoretical", 0.5}}}};
  std::ofstream(folder / "profile.json") << summary.dump();
  return folder;
}

// Records every event, as a caller's observer would.
struct Recorder : workflow::Observer {
  std::vector<workflow::Event> events;
  void on_event(const workflow::Event& e) override { events.push_back(e); }
  size_t count(workflow::EventKind kind) const {
    return static_cast<size_t>(std::count_if(events.begin(), events.end(), [&](const auto& e) { return e.kind == kind; }));
  }
};

const analysis::KernelChange& change(const workflow::DiffResult& r, const std::string& prefix) {
  for (const auto& c : r.changes) {
    if (c.name.rfind(prefix, 0) == 0) return c;
  }
  throw std::runtime_error("no kernel " + prefix);
}

TEST(WorkflowDiff, FindsTheKernelsThatChangedAndTheRegressionsBeyondTheAllowance) {
  const auto dir = fresh_dir("workflow_diff");
  workflow::DiffRequest request{write_profile(dir / "before", "mi300x", "MI300X"), write_profile(dir / "after", "mi300x-after", "MI300X"), 10.0};
  Recorder recorder;
  workflow::Control control(&recorder);
  const auto r = workflow::run_diff(request, control);
  EXPECT_EQ(r.before.times.runs, 3);
  EXPECT_TRUE(r.before.from_traces);
  EXPECT_EQ(change(r, "softmax_kernel").verdict, analysis::Verdict::slower);
  EXPECT_NEAR(change(r, "softmax_kernel").change_pct, 30.0, 2.0);
  EXPECT_EQ(change(r, "reduce_rows").verdict, analysis::Verdict::faster);
  EXPECT_EQ(change(r, "matmul_kernel").verdict, analysis::Verdict::unchanged);
  EXPECT_EQ(r.before.occupancy_of(kMatmul), 0.5);
  EXPECT_FALSE(r.before.occupancy_of("softmax_kernel(float*, int, int)")) << "only the dominant kernel's is known";
  ASSERT_EQ(r.regressions.size(), 1u);
  EXPECT_EQ(r.changes[r.regressions[0]].name.rfind("softmax_kernel", 0), 0u);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(recorder.count(workflow::EventKind::stage_started), 2u);
  EXPECT_EQ(recorder.count(workflow::EventKind::stage_finished), 2u);
  const auto doc = workflow::diff_document(r);
  EXPECT_EQ(doc["regressions"].size(), 1u);
  EXPECT_EQ(doc["fail_on_regression_pct"], 10.0);

  request.fail_on_regression_pct = 50.0;
  EXPECT_TRUE(workflow::run_diff(request, control).regressions.empty());
  request.after = request.before;
  request.fail_on_regression_pct = 0.0;
  EXPECT_TRUE(workflow::run_diff(request, control).regressions.empty()) << "a profile against itself changes nothing";
}

TEST(WorkflowDiff, DifferentGpusAndAProfileJsonAloneAreWarnings) {
  const auto dir = fresh_dir("workflow_diff_warn");
  const auto before = write_profile(dir / "before", "mi300x", "MI300X");
  const auto other = write_profile(dir / "other", "rx6900xt", "RX 6900 XT", 1);
  Recorder recorder;
  workflow::Control control(&recorder);
  auto r = workflow::run_diff({before, other, std::nullopt}, control);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("different GPUs"), std::string::npos) << r.warnings[0];
  EXPECT_EQ(recorder.count(workflow::EventKind::warning), 1u) << "a warning is an event too";
  EXPECT_EQ(change(r, "matmul_kernel").verdict, analysis::Verdict::removed);
  EXPECT_EQ(schema_errors(workflow::diff_document(r).dump(), "diff"), "") << "added and removed kernels have null sides";

  // profile.json alone: only its dominant kernel, and a warning where the other side has traces.
  r = workflow::run_diff({before / "profile.json", before / "profile.json", std::nullopt}, control);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].verdict, analysis::Verdict::unchanged);
  EXPECT_TRUE(r.warnings.empty());
  r = workflow::run_diff({before, before / "profile.json", std::nullopt}, control);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("profile.json alone"), std::string::npos);
}

// Traces that other profilers recorded compare as profile folders do: a rocprofv3 CSV folder before,
// the same program with its matmul 1.5 times slower after; an H100 trace and its Nsight Systems export.
TEST(WorkflowDiff, TracesOfOtherProfilersAreCompared) {
  const auto dir = fresh_dir("workflow_diff_traces");
  tools::write_scenario("mi300x", 1, dir / "run.db");
  auto trace = trace::read_rocpd({dir / "run.db"});
  tools::write_rocprofv3_csv(trace, dir / "before", "4001_");
  for (auto& d : trace.dispatches) {
    if (trace.symbols[static_cast<size_t>(d.symbol)].name() == kMatmul) d.end_ns = d.start_ns + d.duration_ns() * 3 / 2;
  }
  tools::write_rocprofv3_csv(trace, dir / "after", "4001_");
  workflow::Control control;
  auto r = workflow::run_diff({dir / "before", dir / "after", std::nullopt}, control);
  EXPECT_TRUE(r.before.from_traces);
  EXPECT_EQ(r.before.gpu_label(), r.after.gpu_label());
  EXPECT_NE(r.before.gpu_label().find("(gfx942)"), std::string::npos) << r.before.gpu_label();
  EXPECT_NEAR(change(r, kMatmul).change_pct, 50, 0.01);
  EXPECT_TRUE(r.before.occupancy_of(kMatmul).has_value()) << "the dominant kernel's occupancy, from the trace";
  for (const auto& c : r.changes) {
    if (c.name != kMatmul) {
      EXPECT_EQ(c.verdict, analysis::Verdict::unchanged) << c.name;
    }
  }
  const auto h100 = source_dir() / "examples/traces/torch_two_streams_h100.db";
  tools::write_nsys_export(trace::read_rocpd({h100}), dir / "report1.sqlite", 4242, tools::NsysRelease::v2025_5);
  r = workflow::run_diff({h100, dir / "report1.sqlite", std::nullopt}, control);
  ASSERT_FALSE(r.changes.empty());
  for (const auto& c : r.changes) EXPECT_EQ(c.change_pct, 0) << c.name;
  EXPECT_TRUE(r.warnings.empty());
}

TEST(WorkflowDiff, UnreadableProfilesAreBadInputNamingTheFile) {
  const auto dir = fresh_dir("workflow_diff_bad");
  fs::create_directories(dir / "empty");
  std::ofstream(dir / "wallclock.json") << R"({"kernel": null, "runtime_ms": 1.0})";
  workflow::Control control;
  for (const auto& [path, says] : std::vector<std::pair<fs::path, std::string>>{{dir / "empty", "no profile.json here"},
                                                                                {dir / "missing", "no such profile folder or file"},
                                                                                {dir / "wallclock.json", "not a rocm-perf profile.json"}}) {
    try {
      workflow::run_diff({path, path, std::nullopt}, control);
      ADD_FAILURE() << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_input);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace rpl::test
