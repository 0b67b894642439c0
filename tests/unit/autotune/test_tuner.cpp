// The tuner whatever the strategy: budgets, failures, the store, interruption, workers; the model and
// random strategies.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <rpl/autotune/recording.hpp>

#include "tuner_doubles.hpp"

namespace rpl::autotune {
namespace {
using namespace test_doubles;

TEST(Tuner, TheModelStrategyFindsTheBestMeasuringOnlyTheBudgetAndNothingTwice) {
  auto s = grid();
  FunctionEvaluator eval([&](size_t c) { return bowl(s, c); });
  MemoryStore store;
  TuneOptions o;
  o.strategy = Strategy::model;
  o.seed = 3;
  auto r = tune(s, eval, store, o);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(a_of(s, *r.best), 13);
  EXPECT_EQ(b_of(s, *r.best), 4);
  EXPECT_EQ(r.budget, 48u);  // 20 % of 240
  EXPECT_EQ(r.seed_count, 24u);
  EXPECT_EQ(r.measured.size(), r.budget);
  EXPECT_EQ(r.measured_in("seed") + r.measured_in("explore") + r.measured_in("confirm"), r.measured.size());
  EXPECT_TRUE(r.model_trusted) << r.model.cv_r2;
  // Each configuration ran once, except the two re-measured twice more.
  int remeasured = 0;
  for (const auto& [c, n] : eval.calls) {
    if (n == 1) continue;
    EXPECT_EQ(n, 3) << c;
    ++remeasured;
  }
  EXPECT_EQ(remeasured, 2);
  EXPECT_EQ(eval.calls.size(), r.measured.size());
  EXPECT_EQ(store.kept.size(), r.measured.size());
  EXPECT_EQ(r.top.front(), *r.best);
}

TEST(Tuner, SameSeedSameSearch) {
  auto s = grid();
  auto run = [&](uint64_t seed) {
    TuneOptions o;
    o.seed = seed;
    std::vector<size_t> order;
    for (const auto& m : tune_on(s, bowl, o).measured) order.push_back(m.configuration);
    return order;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_EQ(run(6), run(6));
}

// The seed orders random search and the model's seed phase. (Bayes begins at the two farthest
// configurations, whatever the seed: on a function without noise its search is the same.)
TEST(Tuner, AnotherSeedAnotherSearch) {
  auto s = grid();
  for (Strategy strategy : {Strategy::random, Strategy::model}) {
    auto run = [&](uint64_t seed) {
      TuneOptions o;
      o.seed = seed;
      o.strategy = strategy;
      std::vector<size_t> order;
      for (const auto& m : tune_on(s, bowl, o).measured) order.push_back(m.configuration);
      return order;
    };
    EXPECT_NE(run(5), run(6)) << strategy_name(strategy);
  }
}

TEST(Tuner, FailuresAreRecordedAndNeverBest) {
  auto s = grid();
  // The true optimum crashes; the best that works is a neighbour.
  FunctionEvaluator eval([&](size_t c) {
    if (a_of(s, c) == 13 && b_of(s, c) == 4) {
      Measurement m;
      m.failure = Failure::crashed;
      m.runs = 1;
      return m;
    }
    return bowl(s, c);
  });
  MemoryStore store;
  TuneOptions o;
  o.strategy = Strategy::random;
  o.budget = 240;  // everything, so that every failure is met
  auto r = tune(s, eval, store, o);
  ASSERT_TRUE(r.best);
  EXPECT_FALSE(a_of(s, *r.best) == 13 && b_of(s, *r.best) == 4);
  EXPECT_EQ(r.measured.size(), 240u);
  EXPECT_EQ(r.failures()[Failure::crashed], 1u);
  EXPECT_EQ(r.failures()[Failure::launch_failed], 3u);
}

// A weak model (the bowl's times spread by up to 100 % at random: a cross-validated R² of about
// 0.5) is explored further and then prunes at the factor squared, not cutting on a poor guess.
TEST(Tuner, LowConfidenceWidensThePruneInsteadOfCutting) {
  auto s = grid();
  std::vector<double> spread(s.size());
  std::mt19937_64 rng(11);
  for (auto& v : spread) v = 1 + static_cast<double>(rng() % 1000) / 1000;
  FunctionEvaluator eval([&](size_t c) {
    auto m = bowl(s, c);
    if (m.ok()) m.value *= spread[c];
    return m;
  });
  MemoryStore store;
  TuneOptions o;
  o.strategy = Strategy::model;
  auto r = tune(s, eval, store, o);
  EXPECT_FALSE(r.model_trusted);
  EXPECT_GT(r.model.cv_r2, 0) << "the model should be weak, not without skill";
  EXPECT_EQ(warning(r, "low_model_confidence"),
            fmt::format("low_model_confidence: the model's cross-validated R² ({:.2f}) stayed under --min-r2 (0.75); its prune keeps "
                        "what it predicts within 3.0625 times the best instead of 1.75",
                        r.model.cv_r2));
  EXPECT_GT(r.explore_rounds, 0u);
  EXPECT_NEAR(r.prune_factor_used, 1.75 * 1.75, 1e-9);
  EXPECT_EQ(r.measured.size(), r.budget);
}

// A model that predicts a random landscape no better than its mean (a cross-validated R² under 0)
// prunes nothing: a budget of 200 of the 240 is spent, where its prune stopped the run at 60.
TEST(Tuner, AModelWithoutSkillPrunesNothingAndTheBudgetIsSpent) {
  auto s = grid();
  std::vector<double> random_costs(s.size());
  std::mt19937_64 rng(11);
  for (auto& v : random_costs) v = 1 + static_cast<double>(rng() % 1000) / 100;
  FunctionEvaluator eval([&](size_t c) { return ok(random_costs[c]); });
  MemoryStore store;
  TuneOptions o;
  o.strategy = Strategy::model;
  o.budget = 200;
  auto r = tune(s, eval, store, o);
  EXPECT_LE(r.model.cv_r2, 0);
  EXPECT_NE(warning(r, "model_without_skill").find("the model predicts no better than the mean of its measurements"), std::string::npos);
  EXPECT_EQ(r.prune_factor_used, 0);
  EXPECT_EQ(r.pruned, 0u);
  EXPECT_EQ(r.measured.size(), 200u);
}

// The bowl's best, whose launches never settle within max_cv, measured three times (once, then
// twice again) at its value times each of `medians` in turn; every configuration measured.
TuneResult with_an_unsettled_best(const std::vector<double>& medians, double max_cv = 0.05) {
  auto s = grid();
  std::map<size_t, size_t> calls;
  FunctionEvaluator eval([&](size_t c) {
    auto m = bowl(s, c);
    if (a_of(s, c) == 13 && b_of(s, c) == 4) {
      m.stable = false;
      m.value *= medians[calls[c]++ % medians.size()];
    }
    return m;
  });
  MemoryStore store;
  TuneOptions o;
  o.strategy = Strategy::random;
  o.budget = 240;
  o.max_cv = max_cv;
  return tune(s, eval, store, o);
}

TEST(Tuner, AWinnerWhoseMediansDisagreeAsWellAsItsLaunchesIsReplacedByTheRunnerUp) {
  const auto r = with_an_unsettled_best({1.0, 1.3, 0.8});
  ASSERT_TRUE(r.best);
  const auto s = grid();
  EXPECT_FALSE(a_of(s, *r.best) == 13 && b_of(s, *r.best) == 4);
  EXPECT_EQ(r.failures()[Failure::unstable], 1u);
}

// Configurations that all measure within 3 % of each other are said to: the figure is likely not
// of what the parameters change. The bowl, whose measured spread is wide, says nothing of it.
TEST(Tuner, ConfigurationsThatAllMeasureAlikeAreSaidTo) {
  const auto s = grid();
  FunctionEvaluator flat([&](size_t c) { return ok(4.05 + 0.001 * static_cast<double>(c % 7)); });
  MemoryStore store;
  TuneOptions o;
  auto r = tune(s, flat, store, o);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings.back().rfind("configurations_alike: the 48 configurations measured are all within 0.1 % of each other", 0), 0u)
      << r.warnings.back();
  FunctionEvaluator varied([&](size_t c) { return bowl(s, c); });
  MemoryStore other;
  for (const auto& w : tune(s, varied, other, o).warnings) EXPECT_EQ(w.rfind("configurations_alike", 0), std::string::npos) << w;
}

// A kernel of tens of microseconds can spread beyond the target in every run while its medians
// agree: it stays the best (on an H200 the 37 fastest configurations of examples/rowsum did not).
TEST(Tuner, AWinnerWhoseLaunchesSpreadButWhoseMediansAgreeIsKept) {
  const auto r = with_an_unsettled_best({1.0, 1.02, 0.99});
  ASSERT_TRUE(r.best);
  const auto s = grid();
  EXPECT_EQ(a_of(s, *r.best), 13);
  EXPECT_EQ(b_of(s, *r.best), 4);
  EXPECT_EQ(r.failures()[Failure::unstable], 0u);
  ASSERT_FALSE(r.remeasured.empty());
  EXPECT_FALSE(r.remeasured.front().stable);
  EXPECT_NEAR(r.remeasured.front().spread, 0.03, 1e-12);  // (1.02 - 0.99) / 1, within max_cv
  EXPECT_DOUBLE_EQ(r.best_value, bowl(s, *r.best).value);  // the median of the three
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings.front().rfind("best_noisy: ", 0), 0u) << r.warnings.front();
  EXPECT_NE(r.warnings.front().find("each of the 3 times it was measured, but their medians agreed within 3.0 %"), std::string::npos)
      << r.warnings.front();
}

// How close the medians must be is the measurements' own target: within 2 %, 1.02 and 0.99 are not.
TEST(Tuner, MediansAgreeWithinTheStabilityTarget) {
  const auto r = with_an_unsettled_best({1.0, 1.02, 0.99}, 0.02);
  ASSERT_TRUE(r.best);
  const auto s = grid();
  EXPECT_FALSE(a_of(s, *r.best) == 13 && b_of(s, *r.best) == 4);
  EXPECT_EQ(r.failures()[Failure::unstable], 1u);
}

TEST(Tuner, EveryConfigurationFailingLeavesNoBest) {
  auto s = grid();
  FunctionEvaluator eval([](size_t) {
    Measurement m;
    m.failure = Failure::no_metric;
    m.runs = 1;
    return m;
  });
  MemoryStore store;
  auto r = tune(s, eval, store, TuneOptions{});
  EXPECT_FALSE(r.best);
  EXPECT_TRUE(r.top.empty());
  EXPECT_EQ(r.failures()[Failure::no_metric], r.measured.size());
}

TEST(Tuner, StoredMeasurementsCountAsMeasuredAndAreNotRunAgain) {
  auto s = grid();
  MemoryStore store;
  TuneOptions o;
  FunctionEvaluator first([&](size_t c) { return bowl(s, c); });
  auto r1 = tune(s, first, store, o);
  FunctionEvaluator second([&](size_t c) { return bowl(s, c); });
  auto r2 = tune(s, second, store, o);
  EXPECT_EQ(r2.measured.size(), r1.measured.size());
  for (const auto& m : r2.measured) EXPECT_TRUE(m.cached);
  for (size_t i = 1; i < r2.curve.size(); ++i) EXPECT_GE(r2.curve[i].seconds, r2.curve[i - 1].seconds) << "the curve never runs back in time";
  size_t runs = 0;
  for (const auto& [c, n] : second.calls) runs += static_cast<size_t>(n);
  EXPECT_EQ(runs, 4u);  // only the deliberate re-measurements
  EXPECT_EQ(r2.best, r1.best);
}

TEST(Tuner, InterruptionStopsAtAMeasurementBoundaryAndResumes) {
  auto s = grid();
  MemoryStore store;
  std::atomic<bool> cancel{false};
  int calls = 0;
  FunctionEvaluator eval([&](size_t c) {
    if (++calls == 10) cancel = true;  // as a signal handler would
    return bowl(s, c);
  });
  auto r1 = tune(s, eval, store, TuneOptions{}, {}, &cancel);
  EXPECT_TRUE(r1.interrupted);
  EXPECT_EQ(r1.measured.size(), 10u);
  EXPECT_EQ(store.kept.size(), 10u);
  FunctionEvaluator again([&](size_t c) { return bowl(s, c); });
  auto r2 = tune(s, again, store, TuneOptions{});
  EXPECT_FALSE(r2.interrupted);
  for (size_t i = 0; i < 10; ++i) EXPECT_TRUE(r2.measured[i].cached);
  FunctionEvaluator straight([&](size_t c) { return bowl(s, c); });
  MemoryStore fresh;
  auto r3 = tune(s, straight, fresh, TuneOptions{});
  EXPECT_EQ(r2.best, r3.best);
  ASSERT_EQ(r2.measured.size(), r3.measured.size());
  for (size_t i = 0; i < r2.measured.size(); ++i) EXPECT_EQ(r2.measured[i].configuration, r3.measured[i].configuration);
}

// The seed takes at most half the budget: the model always has its share to guide.
TEST(Tuner, TheModelsSeedLeavesItHalfTheBudget) {
  auto s = grid();
  TuneOptions o;
  o.strategy = Strategy::model;
  o.budget = 20;
  auto r = tune_on(s, bowl, o);
  EXPECT_EQ(r.seed_count, 10u);
  EXPECT_EQ(r.measured.size(), 20u);
  EXPECT_EQ(r.measured_in("explore") + r.measured_in("confirm"), 10u);
  EXPECT_EQ(warning(r, "budget_too_small_for_a_model"), "");
}

TEST(Tuner, ABudgetTooSmallForAModelMeasuresASpreadAndSaysSo) {
  auto s = grid();
  for (Strategy strategy : {Strategy::model, Strategy::bayes}) {
    TuneOptions o;
    o.strategy = strategy;
    o.budget = 2;
    auto r = tune_on(s, bowl, o);
    EXPECT_EQ(r.measured_in("spread"), 2u) << strategy_name(strategy);
    EXPECT_EQ(warning(r, "budget_too_small_for_a_model"),
              fmt::format("budget_too_small_for_a_model: {} needs more than {} configurations to choose any; a spread of the space "
                          "was measured instead",
                          strategy_name(strategy), strategy == Strategy::bayes ? 2 : 4));
    // A maximin design of two: near opposite corners of the unit cube (A as its log2).
    ASSERT_EQ(r.measured.size(), 2u);
    const auto [low, high] = std::minmax(r.measured[0].configuration, r.measured[1].configuration,
                                         [&](size_t x, size_t y) { return a_of(s, x) < a_of(s, y); });
    EXPECT_LE(a_of(s, low), 2) << strategy_name(strategy);
    EXPECT_GE(a_of(s, high), 14) << strategy_name(strategy);
    EXPECT_GE(std::abs(b_of(s, low) - b_of(s, high)), 9) << strategy_name(strategy);
  }
}

TEST(Tuner, ATimeBudgetAloneStillGuidesTheSearch) {
  auto s = wide_grid();
  FunctionEvaluator eval([&](size_t c) { return bowl(s, c); });
  eval.slow = true;  // 2 ms a measurement
  MemoryStore store;
  TuneOptions o;
  o.time_budget_seconds = 0.2;
  auto r = tune(s, eval, store, o);
  EXPECT_EQ(r.budget, 960u);
  EXPECT_EQ(r.seed_count, 7u) << "an eighth of the default budget (192) counted up to 5 % of the space (48), and the centre";
  EXPECT_EQ(r.measured_in("seed"), 7u);
  EXPECT_GT(r.measured_in("guided"), 0u);
  EXPECT_EQ(r.measured_in("random"), 0u);
  EXPECT_LT(r.measured.size(), 960u);
  EXPECT_TRUE(r.out_of_time);
}

TEST(Tuner, RandomSearchMeasuresTheBudgetInASeededOrder) {
  auto s = grid();
  TuneOptions o;
  o.strategy = Strategy::random;
  o.budget = 30;
  auto r = tune_on(s, bowl, o);
  EXPECT_EQ(r.measured_in("random"), 30u);
  EXPECT_EQ(r.curve.size(), 30u);
}

// Random search under a time budget of `seconds` alone, answered by `e` with `workers` at once.
TuneResult random_search_within(const SearchSpace& s, Evaluator& e, double seconds, int workers = 1) {
  MemoryStore store;
  TuneOptions o;
  o.strategy = Strategy::random;
  o.time_budget_seconds = seconds;
  o.workers = workers;
  return tune(s, e, store, o);
}

// No configuration is started once the time is spent; the best of what was measured is kept.
TEST(Tuner, ATimeBudgetStopsTheSearch) {
  auto s = grid();
  FunctionEvaluator eval([&](size_t c) { return bowl(s, c); });
  eval.slow = true;  // 2 ms a measurement
  const auto r = random_search_within(s, eval, 0.05);
  EXPECT_EQ(r.budget, 240u) << "a time alone bounds the search";
  EXPECT_TRUE(r.out_of_time);
  EXPECT_LT(r.measured.size(), 240u);
  EXPECT_GT(r.measured.size(), 0u);
  EXPECT_FALSE(r.interrupted);
  EXPECT_TRUE(r.best);
  EXPECT_EQ(warning(r, "time_budget_reached"),
            fmt::format("time_budget_reached: the 0.05 s of --budget ran out after {} of 240 configurations", r.measured.size()));
}

// The bowl recorded as though each configuration had taken `seconds`, `build_seconds` of them its build.
std::map<size_t, Measurement> recorded_bowl(const SearchSpace& s, double seconds, double build_seconds) {
  std::map<size_t, Measurement> recorded;
  for (size_t c = 0; c < s.size(); ++c) {
    recorded[c] = bowl(s, c);
    recorded[c].seconds = seconds;
    recorded[c].build_seconds = build_seconds;
  }
  return recorded;
}

// The default strategy under a time budget, replaying `recorded` on its clock.
TuneResult replayed_within(const SearchSpace& s, const std::map<size_t, Measurement>& recorded, double budget) {
  RecordedEvaluator replay(recorded);
  MemoryStore store;
  TuneOptions o;
  o.time_budget_seconds = budget;
  return tune(s, replay, store, o);
}

// A replay spends a time budget in the seconds each measurement took when recorded, as a live run
// would have, not in its own microseconds; the re-measurement of the best is part of it. At 10 s
// each, random search at 100 s starts eight (at 0 to 70 s: once two past the seeds have succeeded,
// one a parameter, each leaves room for itself and a round of re-measuring two, 20 s), then
// re-measures the two best once (80 to 100 s), not twice. The model strategy's seeds are more than
// ten, so nothing is held back: it starts ten and re-measures none; nor does bayes, whose process
// still sees a better configuration likely (TheRoundWaitsWhileTheProcessSeesABetterOneLikely).
// 35 s start three (at 0, 10 and 20 s) and re-measure none: the first two hold nothing back, as one
// alone needs no re-measuring to be chosen, and at 20 s the round no longer fits (it once started
// one and re-measured it twice, choosing nothing).
TEST(Tuner, AReplaySpendsATimeBudgetInTheRecordedSeconds) {
  auto s = grid();
  auto recorded = recorded_bowl(s, 10, 0);
  for (const auto strategy : {Strategy::random, Strategy::model, Strategy::bayes}) {
    const auto at_100 = strategy == Strategy::random ? std::tuple{100.0, 8u, 2u, 1u} : std::tuple{100.0, 10u, 0u, 0u};
    for (const auto& [budget, measured, remeasured, rounds] : {at_100, std::tuple{35.0, 3u, 0u, 0u}}) {
      RecordedEvaluator replay(recorded);
      MemoryStore store;
      TuneOptions o;
      o.strategy = strategy;
      o.time_budget_seconds = budget;
      const auto r = tune(s, replay, store, o);
      EXPECT_EQ(r.measured.size(), measured) << strategy_name(strategy) << " " << budget;
      EXPECT_TRUE(r.out_of_time) << strategy_name(strategy);
      ASSERT_EQ(r.remeasured.size(), remeasured) << strategy_name(strategy) << " " << budget;
      for (const auto& rm : r.remeasured) EXPECT_EQ(rm.rounds.size(), rounds) << strategy_name(strategy) << " " << budget;
      EXPECT_TRUE(r.best) << strategy_name(strategy);
      // The curve runs on the same clock: each configuration ended 10 s after the one before.
      ASSERT_EQ(r.curve.size(), measured);
      for (size_t i = 0; i < r.curve.size(); ++i) EXPECT_DOUBLE_EQ(r.curve[i].seconds, 10.0 * static_cast<double>(i + 1));
      // At 35 s the model strategy's three measured are seeds: no model chose, which random search has
      // none to; bayes's model chose the third (its seeds are two).
      const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
        return w.starts_with("time_budget_too_small_for_a_model: the time ran out after 3 configurations (10.0 s each)");
      });
      EXPECT_EQ(warned, budget == 35.0 && strategy == Strategy::model) << strategy_name(strategy) << " " << budget;
      // Where the round did not run, the best's value is one measurement's, and a warning says so
      // (bayes at 100 s says why too: TheRoundWaitsWhileTheProcessSeesABetterOneLikely).
      const bool unconfirmed = std::any_of(r.warnings.begin(), r.warnings.end(), [&](const std::string& w) {
        const std::string said = "best_not_remeasured: the time ran out before the best could be measured again, so its value is its "
                                 "first measurement's; a round of re-measuring the two best takes about 20 s more here";
        return strategy == Strategy::bayes && budget == 100.0 ? w.starts_with(said + " (the search measured on instead") : w == said;
      });
      EXPECT_EQ(unconfirmed, remeasured == 0) << strategy_name(strategy) << " " << budget;
      if (strategy == Strategy::bayes && budget == 35.0) {
        EXPECT_EQ(r.measured_in("guided"), 1u);
      }
    }
  }
  {  // bayes at 25 s: its two seeds (at 0 and 10 s); enough would be a pick per parameter (two) after
     // them, then a round of two re-measurements.
    const auto r = replayed_within(s, recorded, 25);
    EXPECT_EQ(r.measured.size(), 2u);
    EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(),
                        "time_budget_too_small_for_a_model: the time ran out after 2 configurations (10.0 s each), before a model chose "
                        "any; about --budget 60s would let it choose one per parameter"),
              r.warnings.end());
  }
  // A live evaluator's seconds are not the clock: there the wall clock decides, and 35 s is ample.
  FunctionEvaluator live([&](size_t c) { return recorded[c]; });
  MemoryStore store;
  TuneOptions o;
  o.time_budget_seconds = 35;
  const auto r = tune(s, live, store, o);
  EXPECT_EQ(r.measured.size(), s.size());
  EXPECT_FALSE(r.out_of_time);
}

// The round of re-measurements is held back only once the model has chosen one configuration a
// parameter: it does not take the place of the first the model chooses. At 45 s two seeds and a
// round held back for two had left no room for a third, which 35 s had measured.
TEST(Tuner, TheRoundDoesNotTakeThePlaceOfTheModelsFirstChoices) {
  auto s = grid();
  auto recorded = recorded_bowl(s, 10, 0);
  for (auto& [c, m] : recorded) {  // none fails: both seeds succeed
    if (!m.ok()) m = ok(3), m.seconds = 10;
  }
  auto within = [&](double budget) { return replayed_within(s, recorded, budget); };
  EXPECT_EQ(within(35).measured.size(), 3u);
  const auto r = within(45);
  EXPECT_EQ(r.measured.size(), 4u);
  EXPECT_EQ(r.measured_in("guided"), 2u);
  EXPECT_TRUE(r.remeasured.empty()) << "the round no longer fits after the fourth";
  // Once the model has chosen two, the round is held back: at 60 s the fifth would leave no room for it.
  const auto later = within(60);
  EXPECT_EQ(later.measured.size(), 4u);
  EXPECT_EQ(later.remeasured.size(), 2u);
}

// Under bayes, the round is held back only once the process gives no configuration left a chance of
// 30 % to beat the best by 3 %: on a plain whose costs differ by a thousandth, where it sees none,
// as under the other strategies (at 100 s, eight and the round); in the bowl, whose best the first
// ten do not reach, the time goes to configurations.
TEST(Tuner, TheRoundWaitsWhileTheProcessSeesABetterOneLikely) {
  auto s = grid();
  auto plain = recorded_bowl(s, 10, 0);
  for (auto& [c, m] : plain) m = ok(1 + 0.001 * a_of(s, c)), m.seconds = 10;
  const auto flat = replayed_within(s, plain, 100);
  EXPECT_EQ(flat.measured.size(), 8u);
  EXPECT_EQ(flat.remeasured.size(), 2u);
  const auto bowl = replayed_within(s, recorded_bowl(s, 10, 0), 100);
  EXPECT_EQ(bowl.measured.size(), 10u);
  EXPECT_TRUE(bowl.remeasured.empty());
  ASSERT_TRUE(bowl.likeliest_better);
  EXPECT_GE(bowl.likeliest_better->chance, 0.3) << "the process still sees a better one likely at the end";
  // The warning that the best was measured once says why: the search measured on.
  const auto warned = std::find_if(bowl.warnings.begin(), bowl.warnings.end(), [](const std::string& w) { return w.starts_with("best_not_remeasured:"); });
  ASSERT_NE(warned, bowl.warnings.end());
  EXPECT_NE(warned->find("takes about 20 s more here (the search measured on instead: when it chose its last configurations, the "
                         "process gave one left a chance of 0."),
            std::string::npos)
      << *warned;
}

// Where half of each 10 s went on its build, a re-measurement (the build reused) is expected to take
// 5 s: at 100 s nine start (up to 80 s, then 10 s more and a round of two, 10 s, end by 100 s).
TEST(Tuner, ATimeBudgetExpectsReMeasurementsWithoutTheirBuilds) {
  auto s = grid();
  RecordedEvaluator replay(recorded_bowl(s, 10, 5));
  const auto r = random_search_within(s, replay, 100);
  EXPECT_EQ(r.measured.size(), 9u);
  ASSERT_EQ(r.remeasured.size(), 2u);
  for (const auto& rm : r.remeasured) EXPECT_EQ(rm.rounds.size(), 1u);
}

// A replay whose first measurement takes `extra` seconds more, as a run's first process does on a
// machine just started (live on an H200: 8.4 s where the table's measurement of it took 4.7 s).
class ColdFirstReplay : public Evaluator {
 public:
  ColdFirstReplay(std::map<size_t, Measurement> recorded, double extra) : replay_(std::move(recorded)), extra_(extra) {}
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) override {
    auto m = replay_.measure(configuration, worker, cancel);
    if (calls_++ == 0) m.seconds += extra_;
    return m;
  }
  bool replays_recorded_time() const override { return true; }

 private:
  RecordedEvaluator replay_;
  double extra_;
  int calls_ = 0;
};

// A slow first measurement (18 s, the rest 10 s) does not stop a 60 s budget at one configuration:
// the first holds nothing back for the round, and once a second has run the estimates count the first
// no longer than the longest of the others (10 s). So three start (at 0, 18 and 28 s), then the two best are re-measured once (38 to 58 s). It
// once started one, taking 18 s for the next and 36 s for the round, and re-measured it twice.
TEST(Tuner, ASlowFirstMeasurementDoesNotSpendATimeBudget) {
  auto s = grid();
  ColdFirstReplay replay(recorded_bowl(s, 10, 0), 8);
  const auto r = random_search_within(s, replay, 60);
  ASSERT_EQ(r.measured.size(), 3u);
  ASSERT_EQ(r.curve.size(), 3u);
  EXPECT_DOUBLE_EQ(r.curve[0].seconds, 18);
  EXPECT_DOUBLE_EQ(r.curve[2].seconds, 38);
  ASSERT_EQ(r.remeasured.size(), 2u);
  for (const auto& rm : r.remeasured) {
    ASSERT_EQ(rm.rounds.size(), 1u);
    EXPECT_DOUBLE_EQ(rm.rounds[0].seconds, 10);
  }
  EXPECT_TRUE(r.out_of_time);
}

TEST(Tuner, SeveralWorkersMeasureTheSameConfigurationsAsOne) {
  auto s = grid();
  auto run = [&](int workers, std::map<int, bool>& used) {
    FunctionEvaluator eval([&](size_t c) { return bowl(s, c); });
    eval.slow = true;
    MemoryStore store;
    TuneOptions o;
    o.workers = workers;
    o.batch = 4;  // the guided rounds choose four at a time, for one worker as for four
    auto r = tune(s, eval, store, o);
    used = eval.workers_used;
    return measurements_csv(s, r);
  };
  std::map<int, bool> one, four;
  const auto sequential = run(1, one);
  const auto parallel = run(4, four);
  EXPECT_EQ(sequential, parallel);
  EXPECT_EQ(one.size(), 1u);
  EXPECT_EQ(four.size(), 4u);
}

// A replay whose answers for even configurations come last: its workers end a batch out of order.
class EvenLastReplay : public Evaluator {
 public:
  explicit EvenLastReplay(std::map<size_t, Measurement> recorded) : replay_(std::move(recorded)) {}
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) override {
    if (configuration % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return replay_.measure(configuration, worker, cancel);
  }
  bool replays_recorded_time() const override { return true; }

 private:
  RecordedEvaluator replay_;
};

// A replay runs on the clock its workers would have run on: four measure four configurations at
// once (7 s for an even configuration, 3 s for an odd), the next starting on the one free first; and
// the curve is the same however the replay's threads would have raced (the even ones answer last).
TEST(Tuner, AReplayWithSeveralWorkersRunsOnTheirClock) {
  auto s = grid();
  auto recorded = recorded_bowl(s, 7, 0);
  for (auto& [c, m] : recorded) m.seconds = c % 2 ? 3 : 7;
  auto curve = [&](int workers) {
    EvenLastReplay replay(recorded);
    MemoryStore store;
    TuneOptions o;
    o.strategy = Strategy::random;  // batches of the whole budget: the most to end out of order
    o.budget = 12;
    o.workers = workers;
    std::vector<double> seconds;
    for (const auto& point : tune(s, replay, store, o).curve) seconds.push_back(point.seconds);
    return seconds;
  };
  // One worker: each ends when the one before it had, plus its own seconds.
  EXPECT_EQ(curve(1), (std::vector<double>{7, 14, 21, 28, 31, 38, 45, 52, 55, 58, 65, 68}));
  // Four: the first four (even) end at 7; the fifth (odd) starts then and ends at 10, the sixth to
  // eighth at 14; the ninth and tenth (odd) follow the fifth on its worker (13, 16), the eleventh
  // (even) starts at 14 and ends at 21, the twelfth at 17 (the curve already at 21).
  const std::vector<double> four{7, 7, 7, 7, 10, 14, 14, 14, 14, 16, 21, 21};
  for (int run = 0; run < 3; ++run) EXPECT_EQ(curve(4), four) << run;
}

// Under a time budget, a replay with four workers measures what four GPUs would in the time: 10 s
// configurations, 100 s, four at a time from 0 to 80 s (each start leaving room for itself and a
// round of re-measuring two, the two at once: 10 s), 36 in all where one worker measures 8 (its
// round 20 s); the same every time.
TEST(Tuner, ATimeBudgetReplayedWithFourWorkersMeasuresWhatFourWould) {
  auto s = grid();
  auto recorded = recorded_bowl(s, 10, 0);
  auto run = [&](int workers) {
    EvenLastReplay replay(recorded);
    return random_search_within(s, replay, 100, workers);
  };
  EXPECT_EQ(run(1).measured.size(), 8u);
  const auto first = run(4);
  EXPECT_EQ(first.measured.size(), 36u);
  EXPECT_TRUE(first.out_of_time);
  ASSERT_EQ(first.curve.size(), 36u);
  EXPECT_DOUBLE_EQ(first.curve.back().seconds, 90.0);
  ASSERT_EQ(first.remeasured.size(), 2u);
  EXPECT_EQ(first.remeasured[0].rounds.size(), 1u);
  for (int again = 0; again < 3; ++again) {
    const auto r = run(4);
    ASSERT_EQ(r.measured.size(), first.measured.size());
    for (size_t i = 0; i < r.measured.size(); ++i) EXPECT_EQ(r.measured[i].configuration, first.measured[i].configuration);
  }
}

// bayes chooses one at a time under a count, so the configurations measured do not depend on the
// workers; under a time budget one per worker, as several GPUs otherwise idle; --batch overrides both.
TEST(Tuner, BayesChoosesOnePerWorkerUnderATimeBudget) {
  TuneOptions o;
  o.workers = 4;
  EXPECT_EQ(chosen_together(o), 1u);
  o.time_budget_seconds = 60;
  EXPECT_EQ(chosen_together(o), 4u);
  o.batch = 2;
  EXPECT_EQ(chosen_together(o), 2u);
  o.time_budget_seconds.reset();
  EXPECT_EQ(chosen_together(o), 2u);
}

// Answers from the bowl after a few milliseconds, and notes which worker measured which
// configuration, in the order the calls ended.
class WorkerLog : public Evaluator {
 public:
  explicit WorkerLog(const SearchSpace& s) : space_(s) {}
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>*) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> guard(mutex_);
    calls.emplace_back(configuration, worker);
    return bowl(space_, configuration);
  }
  std::vector<std::pair<size_t, int>> calls;

 private:
  const SearchSpace& space_;
  std::mutex mutex_;
};

// With two workers the two best are re-measured at once, each once on either worker (two rounds),
// so that neither GPU decides between them; with one, both rounds run on worker 0.
TEST(Tuner, TwoWorkersReMeasureTheTwoBestAtOnceOnBoth) {
  auto s = grid();
  auto remeasurements = [&](int workers) {
    WorkerLog log(s);
    MemoryStore store;
    TuneOptions o;
    o.strategy = Strategy::random;
    o.budget = 8;
    o.workers = workers;
    const auto r = tune(s, log, store, o);
    EXPECT_EQ(r.remeasured.size(), 2u);
    EXPECT_EQ(log.calls.size(), 12u);
    std::map<size_t, std::set<int>> on;
    for (size_t i = 8; i < log.calls.size(); ++i) on[log.calls[i].first].insert(log.calls[i].second);
    return on;
  };
  const auto two = remeasurements(2);
  ASSERT_EQ(two.size(), 2u);
  for (const auto& [configuration, workers] : two) EXPECT_EQ(workers, (std::set<int>{0, 1})) << configuration;
  const auto one = remeasurements(1);
  ASSERT_EQ(one.size(), 2u);
  for (const auto& [configuration, workers] : one) EXPECT_EQ(workers, (std::set<int>{0})) << configuration;
}

}  // namespace
}  // namespace rpl::autotune
