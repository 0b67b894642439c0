// A warm start: tuning again from an earlier run of the space.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tuner_doubles.hpp"

namespace rpl::autotune {
namespace {
using namespace test_doubles;

// A narrow dip in a plain whose slope leads away from it (best at A=7 B=9, 0.57 against 1 to 1.2
// elsewhere), and an earlier run of the same space where the dip lay at A=6 B=9 (another problem
// size). Started from that run, bayes measures its best first and finds the dip a step from it at
// 4 % of the space; cold, the same seeds mostly do not (the plain's slope takes the climb to A=1).
double dip(double a, double b, double at_a) {
  return 1 + 0.01 * a - 0.5 * std::exp(-((a - at_a) * (a - at_a) + (b - 9) * (b - 9)) / 2);
}

TEST(Tuner, AWarmStartMeasuresTheEarlierBestFirstAndClimbsFromIt) {
  auto s = grid();
  std::vector<std::pair<size_t, double>> earlier;
  for (size_t c = 0; c < s.size(); ++c) {
    if (static_cast<int>(a_of(s, c)) % 3 == 0) earlier.emplace_back(c, dip(a_of(s, c), b_of(s, c), 6));  // a third measured
  }
  std::sort(earlier.begin(), earlier.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  int warm_found = 0, cold_found = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    for (bool warm : {true, false}) {
      FunctionEvaluator eval([&](size_t c) { return ok(dip(a_of(s, c), b_of(s, c), 7)); });
      MemoryStore store;
      auto o = seeded(seed, 10);
      if (warm) o.warm_start = earlier;
      auto r = tune(s, eval, store, o);
      ASSERT_TRUE(r.best);
      const bool found = a_of(s, *r.best) == 7 && b_of(s, *r.best) == 9;
      (warm ? warm_found : cold_found) += found;
      if (!warm) continue;
      EXPECT_EQ(r.measured[0].configuration, earlier[0].first) << seed;
      EXPECT_EQ(r.measured[0].phase, "seed");
      EXPECT_EQ(r.measured_in("seed"), 2u) << seed;  // the earlier best and one of the spread
    }
  }
  EXPECT_EQ(warm_found, 5);
  EXPECT_LE(cold_found, 2);
  // Where the budget is too small for a model, the earlier best is still the first measured.
  FunctionEvaluator eval([&](size_t c) { return ok(dip(a_of(s, c), b_of(s, c), 7)); });
  MemoryStore store;
  TuneOptions o;
  o.budget = 2;
  o.warm_start = earlier;
  auto r = tune(s, eval, store, o);
  ASSERT_EQ(r.measured.size(), 2u);
  EXPECT_EQ(r.measured[0].configuration, earlier[0].first);
  EXPECT_EQ(r.measured_in("spread"), 2u);
}

// The bowl whose bottom fails to launch (A of 15 and more), tuned again after an earlier run that
// measured a fifth of it, failures included: started warm, no configuration that failed there is
// measured while others are left, where started from its successes alone some are; with all but
// one of the space to measure, they are measured last; the last word names none of them.
TEST(Tuner, AWarmStartLeavesWhatFailedThereForLast) {
  auto s = grid();
  auto landscape = [&](size_t c) {
    if (a_of(s, c) >= 15) {
      Measurement m;
      m.failure = Failure::launch_failed;
      m.runs = 1;
      return m;
    }
    return ok(1 + 0.01 * (a_of(s, c) - 17) * (a_of(s, c) - 17) + 0.03 * (b_of(s, c) - 4) * (b_of(s, c) - 4));
  };
  std::vector<std::pair<size_t, double>> earlier;
  std::vector<size_t> earlier_failed;
  for (size_t c = 0; c < s.size(); c += 5) {
    const auto m = landscape(c);
    if (m.ok()) earlier.emplace_back(c, m.value);
    else earlier_failed.push_back(c);
  }
  std::sort(earlier.begin(), earlier.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  auto failed_there = [&](size_t c) { return std::find(earlier_failed.begin(), earlier_failed.end(), c) != earlier_failed.end(); };
  size_t measured_again = 0, measured_again_unknowing = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    for (bool told : {true, false}) {
      FunctionEvaluator eval(landscape);
      MemoryStore store;
      auto o = seeded(seed, 60);
      o.warm_start = earlier;
      if (told) o.warm_start_failures = earlier_failed;
      const auto r = tune(s, eval, store, o);
      for (const auto& m : r.measured) (told ? measured_again : measured_again_unknowing) += failed_there(m.configuration);
      if (told && r.likeliest_better) {
        EXPECT_FALSE(failed_there(r.likeliest_better->configuration)) << seed;
      }
    }
  }
  EXPECT_EQ(measured_again, 0u);
  EXPECT_GT(measured_again_unknowing, 0u);
  FunctionEvaluator eval(landscape);
  MemoryStore store;
  TuneOptions o;
  o.budget = s.size() - 1;  // all but one: the bayes search, not the whole space in the seeded order
  o.warm_start = earlier;
  o.warm_start_failures = earlier_failed;
  const auto r = tune(s, eval, store, o);
  ASSERT_EQ(r.measured.size(), s.size() - 1);
  for (size_t i = 0; i < r.measured.size(); ++i) {
    EXPECT_EQ(failed_there(r.measured[i].configuration), i >= s.size() - earlier_failed.size()) << i;
  }
}

// Several earlier runs (other sizes: one twice as slow everywhere) make one warm start: the first
// run's costs as they are, the second's scaled so that its best costs what the first's does,
// cheapest first, the first run's best ahead of the second's, and the runs' bests the first seeds;
// a failure there stays left for last unless another run had it succeed.
TEST(Tuner, EarlierRunsJoinRelativeToTheirOwnBest) {
  TuneOptions o;
  add_earlier_run(o, {{4, 4.0}, {7, 2.0}, {9, 6.0}}, {11, 12});
  EXPECT_EQ(o.warm_start, (std::vector<std::pair<size_t, double>>{{7, 2.0}, {4, 4.0}, {9, 6.0}}));
  add_earlier_run(o, {{5, 4.8}, {4, 4.0}, {11, 8.0}}, {13, 12});
  const std::vector<std::pair<size_t, double>> expected = {{7, 2.0}, {4, 2.0}, {5, 2.4}, {4, 4.0}, {11, 4.0}, {9, 6.0}};
  EXPECT_EQ(o.warm_start, expected);
  EXPECT_EQ(o.warm_start_failures, (std::vector<size_t>{12, 13})) << "11 succeeded in the second run";
  EXPECT_EQ(o.warm_start_bests, (std::vector<size_t>{7, 4}));
  // The runs' bests are the first seeds, in the order the runs were added.
  auto s = grid();
  for (bool swapped : {false, true}) {
    TuneOptions w;
    w.budget = 6;
    const std::vector<std::pair<size_t, double>> first = {{3, 1.0}, {40, 1.5}}, second = {{60, 2.0}, {3, 2.2}};
    add_earlier_run(w, swapped ? second : first, {});
    add_earlier_run(w, swapped ? first : second, {});
    FunctionEvaluator eval([&](size_t c) { return ok(1 + 0.01 * static_cast<double>(c)); });
    MemoryStore store;
    const auto r = tune(s, eval, store, w);
    ASSERT_GE(r.measured.size(), 2u);
    EXPECT_EQ(r.measured[0].configuration, swapped ? 60u : 3u);
    EXPECT_EQ(r.measured[1].configuration, swapped ? 3u : 60u);
    EXPECT_EQ(r.measured[0].phase, "seed");
    EXPECT_EQ(r.measured[1].phase, "seed");
  }
}

}  // namespace
}  // namespace rpl::autotune
