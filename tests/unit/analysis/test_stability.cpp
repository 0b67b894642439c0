#include <cmath>

#include <gtest/gtest.h>

#include <rpl/analysis/stability.hpp>

namespace rpl::analysis {
namespace {

TEST(Stability, StatisticsOfKnownSamples) {
  auto s = compute_stability({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}, 2, 3);
  EXPECT_EQ(s.runs, 2);
  EXPECT_EQ(s.samples, 8u);
  EXPECT_DOUBLE_EQ(s.mean_ms, 5.0);
  EXPECT_DOUBLE_EQ(s.median_ms, 4.5);
  EXPECT_DOUBLE_EQ(s.min_ms, 2.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 9.0);
  EXPECT_NEAR(s.stddev_ms, std::sqrt(32.0 / 7.0), 1e-12);  // sample standard deviation
  EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
  EXPECT_EQ(s.classification, "unstable");
}

TEST(Stability, ClassificationThresholds) {
  EXPECT_EQ(classify_cv(0.0), "stable");
  EXPECT_EQ(classify_cv(0.05), "stable");
  EXPECT_EQ(classify_cv(0.0500001), "moderate");
  EXPECT_EQ(classify_cv(0.10), "moderate");
  EXPECT_EQ(classify_cv(0.1000001), "unstable");
}

TEST(Stability, OneSampleAndOrderIndependence) {
  auto one = compute_stability({3.0}, 1, 1);
  EXPECT_EQ(one.stddev_ms, 0.0);
  EXPECT_EQ(one.median_ms, 3.0);
  EXPECT_EQ(one.classification, "single_sample");  // no spread to judge, not a cv of 0
  EXPECT_EQ(compute_stability({3.0, 3.0}, 1, 1).classification, "stable");
  auto a = compute_stability({0.1, 0.7, 0.3, 1e-9, 123.4}, 1, 1);
  auto b = compute_stability({123.4, 1e-9, 0.3, 0.7, 0.1}, 1, 1);
  EXPECT_EQ(a.mean_ms, b.mean_ms);  // bit-identical, not just close
  EXPECT_EQ(a.stddev_ms, b.stddev_ms);
}

}  // namespace
}  // namespace rpl::analysis
