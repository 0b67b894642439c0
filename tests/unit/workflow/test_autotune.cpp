// workflow::run_autotune in-process, answered from a landscape measured on an H100 (--replay): the
// document written, the progress observed, a cancelled search, and bad requests refused.
#include <atomic>
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/report/autotune_json.hpp>
#include <rpl/workflow/autotune.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

workflow::AutotuneRequest stencil_replay(const fs::path& out) {
  workflow::AutotuneRequest r;
  r.space_file = source_dir() / "examples/stencil/stencil_space.json";
  r.cmd_template = "stencil --bx {BX} --by {BY} --rows {ROWS}";
  r.replay_file = source_dir() / "bench/data/stencil_h100_exhaustive.csv";
  r.out_dir = out;
  r.budget = "20%";
  return r;
}

// The stencil's replay at `budget`, in a fresh folder of that name.
auto stencil_replay_at(const std::string& dir_name, const std::string& budget) {
  auto request = stencil_replay(fresh_dir(dir_name) / "out");
  request.budget = budget;
  workflow::Control control;
  return workflow::run_autotune(request, control);
}

TEST(WorkflowAutotune, SearchesARecordedLandscapeAndWritesItsDocument) {
  const auto dir = fresh_dir("workflow_autotune");
  auto request = stencil_replay(dir / "out");
  size_t updates = 0;
  request.progress = [&](const autotune::TuneProgress&) { ++updates; };
  workflow::Control control;
  const auto r = workflow::run_autotune(request, control);
  ASSERT_TRUE(r.result.best);
  EXPECT_EQ(r.result.budget, 20u);
  EXPECT_GE(updates, r.result.measured.size()) << "a progress update per measurement at least";
  EXPECT_TRUE(fs::exists(r.document_file));
  EXPECT_EQ(r.document["strategy"], "bayes");
  EXPECT_EQ(r.best_command.front(), "stencil");
  EXPECT_EQ(schema_errors(r.document.dump(), "autotune"), "");
}

// Replayed, a time budget is spent in the seconds the table recorded for each configuration (0.52 to
// 0.69 s), the re-measurement of the best included: the search stops where a configuration and a
// round of re-measuring the two best, as long as those before took, would end after 5 s.
TEST(WorkflowAutotune, AReplayedTimeBudgetSpendsTheRecordedSeconds) {
  const auto r = stencil_replay_at("workflow_autotune_time", "5s");
  ASSERT_GE(r.result.measured.size(), 2u);
  EXPECT_LT(r.result.measured.size(), 96u);
  double search = 0, remeasured = 0;
  for (const auto& m : r.result.measured) search += m.measurement.seconds;
  for (const auto& rm : r.result.remeasured) {
    EXPECT_EQ(rm.rounds.size(), 1u) << "a second round would end after the budget";
    for (const auto& m : rm.rounds) remeasured += m.seconds;
  }
  EXPECT_EQ(r.result.remeasured.size(), 2u);
  const double mean = search / static_cast<double>(r.result.measured.size());
  EXPECT_GT(search + mean + 2 * mean, 5.0) << "no room left for another configuration and a round";
  EXPECT_LE(search + remeasured, 5.0 * 1.05) << "search " << search << " s, re-measured " << remeasured << " s";
  EXPECT_TRUE(r.result.out_of_time);
  EXPECT_EQ(r.document["budget_seconds"], 5.0);
  EXPECT_NEAR(r.document["measured"]["seconds"].get<double>(), search, 1e-6);
  EXPECT_NEAR(r.document["measured"]["remeasurement_seconds"].get<double>(), remeasured, 1e-6);
  // The curve's seconds: each configuration's end, one after the other, on the budget's clock.
  const auto& curve = r.document["curve"];
  ASSERT_EQ(curve.size(), r.result.measured.size());
  double ended = 0;
  for (size_t i = 0; i < curve.size(); ++i) {
    ended += r.result.measured[i].measurement.seconds;
    EXPECT_NEAR(curve[i]["seconds"].get<double>(), ended, 1e-6) << i;
  }
  EXPECT_EQ(schema_errors(r.document.dump(), "autotune"), "");
  const auto text = report::autotune_text(r.space, r.result, r.setup, r.best_command);
  EXPECT_NE(text.find("budget 96 or 5 s)"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("{:.1f} s measuring, {:.1f} s re-measuring", search, remeasured)), std::string::npos) << text;
  // The best was measured again once: its value is the median of two, each named.
  ASSERT_EQ(r.document["best"]["remeasured"].size(), 1u) << r.document["best"];
  EXPECT_NE(text.find(" (the median of 2 measurements: "), std::string::npos) << text;
  EXPECT_NE(text.find(" samples; then "), std::string::npos) << text;
}

// 1 s leaves room for one configuration (0.58 s) and no second: the seeds are cut short, and the
// text says that no model guided the search rather than that it was random.
TEST(WorkflowAutotune, ATimeBudgetThatEndsWithTheSeedsSaysSo) {
  const auto r = stencil_replay_at("workflow_autotune_seeds_only", "1s");
  EXPECT_EQ(r.result.measured.size(), 1u);
  EXPECT_EQ(r.result.measured_in("seed"), 1u);
  EXPECT_TRUE(r.result.out_of_time);
  const auto text = report::autotune_text(r.space, r.result, r.setup, r.best_command);
  EXPECT_NE(text.find("Model: none (the search ended with its seeds, before the process guided any)"), std::string::npos) << text;
  EXPECT_EQ(text.find("random search"), std::string::npos) << text;
  EXPECT_NE(text.find(" (measured once: cv "), std::string::npos) << text;
  // And the warnings say how long would let the process choose: the two seeds and one pick per
  // parameter (three), then a round of two re-measurements, seven at the one measured's pace.
  const double pace = r.result.measured[0].measurement.seconds;
  const auto& warnings = r.document["warnings"];
  ASSERT_EQ(warnings.size(), 2u) << warnings;
  EXPECT_EQ(warnings[0], "time_budget_reached: the 1 s of --budget ran out after 1 of 96 configurations");
  EXPECT_EQ(warnings[1], fmt::format("time_budget_too_small_for_a_model: the time ran out after 1 configuration ({:.1f} s each), before a "
                                     "model chose any; about --budget {:.0f}s would let it choose one per parameter",
                                     pace, std::ceil(7 * pace)));
}

TEST(WorkflowAutotune, ACancelledSearchReturnsInterrupted) {
  const auto dir = fresh_dir("workflow_autotune_cancel");
  const std::atomic<bool> cancel{true};
  workflow::Control control(nullptr, &cancel);
  const auto r = workflow::run_autotune(stencil_replay(dir / "out"), control);
  EXPECT_TRUE(r.result.interrupted);
  EXPECT_TRUE(r.result.measured.empty());
}

TEST(WorkflowAutotune, BadRequestsAreRefusedBeforeAnythingRuns) {
  const auto dir = fresh_dir("workflow_autotune_bad");
  workflow::Control control;
  auto code = [&](const workflow::AutotuneRequest& r) {
    try {
      workflow::run_autotune(r, control);
    } catch (const Error& e) {
      return e.code();
    }
    return Errc::internal;
  };
  auto r = stencil_replay(dir / "out");
  r.resume = true;
  EXPECT_EQ(code(r), Errc::bad_input) << "--resume with --replay";
  r = stencil_replay(dir / "out");
  r.devices = {0, 0};
  EXPECT_EQ(code(r), Errc::bad_input) << "a GPU twice";
  r = stencil_replay(dir / "out");
  r.strategy = "annealing";
  EXPECT_EQ(code(r), Errc::bad_input);
  r = stencil_replay(dir / "out");
  r.kernel = "stencil";
  r.no_rocprof = true;
  EXPECT_EQ(code(r), Errc::bad_input);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace rpl::test
