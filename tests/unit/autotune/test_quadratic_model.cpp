// The regression model of the model strategy.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include <rpl/autotune/model.hpp>

#include "tuner_doubles.hpp"

namespace rpl::autotune {
namespace {
using namespace test_doubles;

TEST(QuadraticModel, RecoversAQuadraticInLogSpace) {
  // Ranges within a factor of 4 enter as they are.
  auto s = parse_search_space(R"({"parameters": {"A": {"min": 11, "max": 30}, "B": {"min": 5, "max": 16}}})", "g.json");
  QuadraticModel model(s);
  auto truth = [&](size_t c) {
    const double a = a_of(s, c), b = b_of(s, c);
    return std::exp(0.01 * (a - 18) * (a - 18) + 0.02 * (b - 9) * (b - 9) + 0.001 * a * b);
  };
  std::vector<size_t> configs;
  std::vector<double> costs;
  for (size_t c = 0; c < s.size(); c += 7) {
    configs.push_back(c);
    costs.push_back(truth(c));
  }
  auto fit = model.fit(configs, costs);
  ASSERT_TRUE(fit.fitted);
  EXPECT_EQ(fit.features, (std::vector<std::string>{"A", "B"}));
  EXPECT_GT(fit.r2, 0.999);
  EXPECT_GT(fit.cv_r2, 0.99);
  EXPECT_EQ(fit.terms, 6u);  // 1, A, B, A², AB, B²
  const size_t c = 5 * 12 + 3;  // not fitted to
  EXPECT_NEAR(model.predict(c) / truth(c), 1.0, 0.01);
}

TEST(QuadraticModel, WideRangesEnterAsLogarithms) {
  auto s = parse_search_space(R"({"parameters": {"T": {"min": 16, "max": 1024, "factor": 2}, "U": [1, 2, 3]},
                                  "derived": {"W": "T * U"}})", "g.json");
  QuadraticModel model(s);
  std::vector<size_t> configs;
  std::vector<double> costs;
  for (size_t c = 0; c < s.size(); ++c) {
    configs.push_back(c);
    const double t = *s.value(c, 0).number;
    costs.push_back(std::pow(t, 0.5) * std::pow(64 / t + 1, 2));  // a power law: quadratic in log2(T) only roughly
  }
  auto fit = model.fit(configs, costs);
  EXPECT_EQ(fit.features, (std::vector<std::string>{"log2(T)", "U", "log2(W)"}));
  EXPECT_GT(fit.r2, 0.95);
}

TEST(QuadraticModel, NoiseHasLowCrossValidatedR2) {
  auto s = grid();
  QuadraticModel model(s);
  std::mt19937_64 rng(7);
  std::vector<size_t> configs;
  std::vector<double> costs;
  for (size_t c = 0; c < s.size(); c += 5) {
    configs.push_back(c);
    costs.push_back(1 + static_cast<double>(rng() % 1000));
  }
  auto fit = model.fit(configs, costs);
  ASSERT_TRUE(fit.fitted);
  EXPECT_LT(fit.cv_r2, 0.3);
  EXPECT_FALSE(QuadraticModel(s).fit({0, 1}, {1.0, 2.0}).fitted);
}

}  // namespace
}  // namespace rpl::autotune
