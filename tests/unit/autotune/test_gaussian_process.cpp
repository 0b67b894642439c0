// The Bayesian strategy's parts without a GPU: the Gaussian process's fit and uncertainty, expected
// improvement, the budget as a user writes it, and the recorded landscapes' noise.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include <rpl/autotune/budget.hpp>
#include <rpl/autotune/gaussian_process.hpp>
#include <rpl/autotune/recording.hpp>
#include <rpl/core/error.hpp>

#include "test_support.hpp"

namespace rpl::autotune {
namespace {

// T from 1 to 64 (log-scaled), W a word: cost = (log2 T - 3.5)² + 1, doubled for "slow".
SearchSpace space() {
  return parse_search_space(R"({"parameters": {"T": {"min": 1, "max": 64}, "W": ["fast", "slow"]}})", "gp.json");
}

double truth(const SearchSpace& s, size_t c) {
  const double t = std::log2(*s.value(c, 0).number);
  return (1 + (t - 3.5) * (t - 3.5)) * (s.value(c, 1).text == "slow" ? 2 : 1);
}

TEST(GaussianProcess, PredictsASmoothLandscapeFromAFewPointsAndKnowsWhereItIsUnsure) {
  const auto s = space();
  GaussianProcess gp(s);
  std::vector<size_t> observed;
  std::vector<double> costs;
  for (size_t c = 0; c < s.size(); c += 5) {
    observed.push_back(c);
    costs.push_back(truth(s, c));
  }
  const auto fit = gp.fit(observed, costs);
  ASSERT_TRUE(fit.fitted);
  EXPECT_EQ(fit.length_scales.size(), 2u);
  // Close where it has seen its neighbours, and never off by more than it says it may be.
  std::vector<double> errors;
  for (size_t c = 0; c < s.size(); ++c) {
    const auto p = gp.predict(c);
    const double error = std::fabs(p.mean - std::log(truth(s, c)));
    EXPECT_LE(error, 3 * p.sd + 0.02) << "configuration " << c;
    errors.push_back(error);
  }
  std::sort(errors.begin(), errors.end());
  EXPECT_LT(errors[errors.size() / 2], 0.05) << "half the configurations predicted within 5 %";
  // Surer where it measured than between.
  EXPECT_LT(gp.predict(observed[3]).sd, gp.predict(observed[3] + 2).sd);
  EXPECT_FALSE(GaussianProcess(s).fit({0}, {1.0}).fitted) << "one observation is no fit";
}

TEST(GaussianProcess, ExpectedImprovementWeighsTheMeanAgainstTheUncertainty) {
  const double best = 0;
  EXPECT_GT(expected_improvement({-0.5, 0.1}, best), expected_improvement({-0.2, 0.1}, best));
  EXPECT_GT(expected_improvement({0.2, 1.0}, best), expected_improvement({0.2, 0.1}, best));
  EXPECT_NEAR(expected_improvement({-0.3, 0}, best), 0.3, 1e-12);
  EXPECT_EQ(expected_improvement({0.3, 0}, best), 0);
  EXPECT_GT(expected_improvement({0.3, 0.2}, best), 0);
}

TEST(GaussianProcess, ChanceBelowIsTheNormalsShareUnderTheCost) {
  EXPECT_NEAR(chance_below({0.0, 0.5}, 0.0), 0.5, 1e-12);
  EXPECT_NEAR(chance_below({0.0, 1.0}, 1.0), 0.841344746, 1e-9);  // one standard deviation above the mean
  EXPECT_NEAR(chance_below({0.0, 1.0}, -1.0), 1 - 0.841344746, 1e-9);
  EXPECT_GT(chance_below({0.0, 0.1}, 0.05), chance_below({0.0, 0.2}, 0.05)) << "surer of a mean below, likelier below";
  EXPECT_EQ(chance_below({-0.1, 0}, 0.0), 1);
  EXPECT_EQ(chance_below({0.1, 0}, 0.0), 0);
  EXPECT_EQ(chance_below({0.0, 0}, 0.0), 0) << "not below where it is certain to be equal";
}

TEST(Budget, ACountAFractionAPercentageOrATime) {
  auto parsed = [](const std::string& text) {
    TuneOptions o;
    apply_budget(text, o);
    return o;
  };
  EXPECT_EQ(parsed("45").budget, 45u);
  EXPECT_DOUBLE_EQ(parsed("0.2").budget_fraction.value(), 0.2);
  EXPECT_DOUBLE_EQ(parsed("15%").budget_fraction.value(), 0.15);
  EXPECT_EQ(parsed("90s").time_budget_seconds, 90);
  EXPECT_EQ(parsed("20m").time_budget_seconds, 1200);
  EXPECT_EQ(parsed("1h30m").time_budget_seconds, 5400);
  EXPECT_EQ(parsed("1.5h").time_budget_seconds, 5400);
  EXPECT_FALSE(parsed("20m").budget);
  for (const char* bad : {"20x", "m", "0s", "-5m", "5m3", "1.5", "0", "150%", "ten"}) {
    std::string message;
    EXPECT_EQ(test::error_code_of([&] { parsed(bad); }, &message), Errc::bad_input) << bad;
    EXPECT_NE(message.find("a time (90s, 20m, 1h30m)"), std::string::npos) << message;
  }
}

// A recorded landscape answers with the noise it was measured with: around its figure, anew on
// each call, the same for the same seed.
TEST(NoisyRecordedEvaluator, DrawsAroundTheRecordedFigureWithItsSpread) {
  Measurement recorded;
  recorded.value = 2.0;
  recorded.cv = 0.02;
  recorded.samples = 10;
  recorded.stable = true;
  Measurement failed;
  failed.failure = Failure::launch_failed;
  NoisyRecordedEvaluator a({{0, recorded}, {1, failed}}, 7), b({{0, recorded}, {1, failed}}, 7);
  const auto first = a.measure(0, 0, nullptr), again = a.measure(0, 0, nullptr);
  EXPECT_NE(first.value, again.value);
  EXPECT_NEAR(first.value, 2.0, 2.0 * 0.02 * 2);
  EXPECT_EQ(first.samples, 10);
  EXPECT_NEAR(first.cv, 0.02, 0.015);
  EXPECT_TRUE(first.stable);
  EXPECT_EQ(b.measure(0, 0, nullptr).value, first.value);
  EXPECT_EQ(a.measure(1, 0, nullptr).failure, Failure::launch_failed);
  EXPECT_EQ(a.measure(2, 0, nullptr).failure, Failure::no_metric);
}

}  // namespace
}  // namespace rpl::autotune
