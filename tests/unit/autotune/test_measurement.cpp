// A measurement's figures from its samples, and when its median has settled.
#include <vector>

#include <gtest/gtest.h>

#include <rpl/autotune/measurement.hpp>

namespace rpl::autotune {
namespace {

// n samples alternating 1 - spread and 1 + spread: a median of 1 and a cv of about `spread`.
Measurement summarized(int n, double spread, double max_cv = 0.05) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) samples.push_back(i % 2 ? 1 + spread : 1 - spread);
  Measurement m;
  summarize_samples(samples, max_cv, m);
  return m;
}

TEST(Measurement, LaunchesSpreadBeyondTheTargetAreNotStable) {
  const auto m = summarized(20, 0.06);
  EXPECT_EQ(m.samples, 20);
  EXPECT_DOUBLE_EQ(m.value, 1.0);
  EXPECT_NEAR(m.cv, 0.0616, 1e-4);
  EXPECT_FALSE(m.stable);
  EXPECT_TRUE(summarized(20, 0.04).stable);
}

// The median's standard error, 1.25 x 6 % / sqrt(n): 1.7 % with 20 launches, 0.85 % with 80, and
// the target a fifth of max_cv (1 %).
TEST(Measurement, AMedianSettlesAsLaunchesAddUpThoughTheirSpreadStays) {
  EXPECT_FALSE(median_settled(summarized(20, 0.06), 0.05));
  EXPECT_FALSE(median_settled(summarized(40, 0.06), 0.05));
  EXPECT_TRUE(median_settled(summarized(80, 0.06), 0.05));
  EXPECT_FALSE(median_settled(summarized(80, 0.06), 0.02));
  EXPECT_FALSE(median_settled(summarized(1, 0), 0.05)) << "one sample says nothing of its spread";
}

}  // namespace
}  // namespace rpl::autotune
