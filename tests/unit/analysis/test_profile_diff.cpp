// compare_kernel_times: verdicts judged against the noise both profiles measured.
#include <cmath>

#include <gtest/gtest.h>

#include <rpl/analysis/profile_diff.hpp>

namespace rpl::analysis {
namespace {

KernelTimes times(const std::string& name, std::vector<double> run_ms, size_t dispatches, double dispatch_sd) {
  return {name, std::move(run_ms), dispatches, dispatch_sd};
}

ProfileTimes profile(int runs, std::vector<KernelTimes> kernels) { return {runs, std::move(kernels)}; }

// Student's t quantiles at 1 - 0.00135 (the two-sided 0.27 % of three normal standard errors),
// computed apart from Boost by integrating t's density numerically.
constexpr double kT4 = 6.620072, kT198 = 3.038299;

TEST(ProfileDiff, ChangeWithinTheRunToRunSpreadIsUnchanged) {
  // Runs spread by ±1 ms around 10 ms: the standard error is 1/sqrt(3) ms per profile, on 2 degrees
  // of freedom each, 4 for their difference (Welch); the noise is t(4) * sqrt(2/3) = 5.41 ms, so
  // 5 ms is noise and 6 ms is not.
  const auto before = profile(3, {times("k", {9, 10, 11}, 3, 0)});
  auto c = compare_kernel_times(before, profile(3, {times("k", {14, 15, 16}, 3, 0)}));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].verdict, Verdict::unchanged);
  EXPECT_NEAR(*c[0].noise_pct, kT4 * std::sqrt(2.0 / 3) * 10, 1e-3);
  EXPECT_NEAR(c[0].change_pct, 50.0, 1e-9);
  c = compare_kernel_times(before, profile(3, {times("k", {15, 16, 17}, 3, 0)}));
  EXPECT_EQ(c[0].verdict, Verdict::slower);
  c = compare_kernel_times(before, profile(3, {times("k", {3, 4, 5}, 3, 0)}));
  EXPECT_EQ(c[0].verdict, Verdict::faster);
}

TEST(ProfileDiff, TwoRunsASideNeedAMuchLargerChange) {
  // Two runs a side that happen to agree closely: three standard errors of a normal (0.17 ms)
  // would call this 2 % change real; two samples a side leave about 1.5 degrees of freedom.
  const auto c = compare_kernel_times(profile(2, {times("k", {10.0, 10.1}, 2, 0)}), profile(2, {times("k", {9.8, 9.85}, 2, 0)}));
  EXPECT_GT(*c[0].noise_pct, 10.0);
  EXPECT_EQ(c[0].verdict, Verdict::unchanged);
}

TEST(ProfileDiff, OneRunUsesTheDispatchSpread) {
  // 100 dispatches of sd 0.1 ms in one run: the run's total has a standard error of 1 ms, on 99
  // degrees of freedom; the noise is t(198) * sqrt(2) = 4.30 ms.
  const auto before = profile(1, {times("k", {100}, 100, 0.1)});
  auto c = compare_kernel_times(before, profile(1, {times("k", {104}, 100, 0.1)}));
  EXPECT_NEAR(*c[0].noise_pct, kT198 * std::sqrt(2.0), 1e-5);
  EXPECT_EQ(c[0].verdict, Verdict::unchanged);
  c = compare_kernel_times(before, profile(1, {times("k", {105}, 100, 0.1)}));
  EXPECT_EQ(c[0].verdict, Verdict::slower);
}

TEST(ProfileDiff, NoMeasuredSpreadMeansNoiseUnknownAndAnyChangeCounts) {
  auto c = compare_kernel_times(profile(1, {times("k", {1.0}, 1, 0)}), profile(1, {times("k", {1.001}, 1, 0)}));
  EXPECT_FALSE(c[0].noise_pct);
  EXPECT_EQ(c[0].verdict, Verdict::slower);
  c = compare_kernel_times(profile(1, {times("k", {1.0}, 1, 0)}), profile(1, {times("k", {1.0}, 1, 0)}));
  EXPECT_EQ(c[0].verdict, Verdict::unchanged);
}

TEST(ProfileDiff, AddedRemovedAndSharesAndOrder) {
  const auto c = compare_kernel_times(profile(1, {times("a", {3}, 1, 0), times("gone", {1}, 1, 0)}),
                                      profile(1, {times("a", {3}, 1, 0), times("new", {9}, 1, 0)}));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].name, "new");
  EXPECT_EQ(c[0].verdict, Verdict::added);
  EXPECT_FALSE(c[0].before);
  EXPECT_NEAR(c[0].after->share, 0.75, 1e-12);
  EXPECT_EQ(c[1].name, "a");
  EXPECT_NEAR(c[1].before->share, 0.75, 1e-12);
  EXPECT_EQ(c[2].verdict, Verdict::removed);
}

// The optimizer's alternating replays: samples judged by the same Welch test as the profiles.
TEST(ProfileDiff, SamplesFasterOnlyBeyondTheirSpread) {
  const std::vector<double> original = {0.5804, 0.5803, 0.5807, 0.5803, 0.5806};
  auto c = compare_samples(original, {0.2330, 0.2332, 0.2331, 0.2329, 0.2333});
  EXPECT_EQ(c.verdict, Verdict::faster);
  EXPECT_NEAR(c.change_pct, -59.8, 0.1);
  ASSERT_TRUE(c.noise_pct);
  EXPECT_LT(*c.noise_pct, 0.2);
  c = compare_samples(original, {0.5805, 0.5802, 0.5806, 0.5804, 0.5803});
  EXPECT_EQ(c.verdict, Verdict::unchanged);
  // Two samples a side need a difference about six times their standard error.
  EXPECT_EQ(compare_samples({1.0, 1.2}, {0.9, 1.1}).verdict, Verdict::unchanged);
  EXPECT_EQ(compare_samples({1.0, 1.0}, {1.1, 1.1}).verdict, Verdict::slower);  // no spread: any change counts
}

}  // namespace
}  // namespace rpl::analysis
