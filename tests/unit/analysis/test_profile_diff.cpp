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

TEST(ProfileDiff, ChangeWithinTheRunToRunSpreadIsUnchanged) {
  // Runs spread by ±1 ms around 10 ms: the standard error is 1/sqrt(3) ms per profile, the noise
  // 3 * sqrt(2/3) = 2.45 ms, so 2 ms is noise and 3 ms is not.
  const auto before = profile(3, {times("k", {9, 10, 11}, 3, 0)});
  auto c = compare_kernel_times(before, profile(3, {times("k", {11, 12, 13}, 3, 0)}));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].verdict, Verdict::unchanged);
  EXPECT_NEAR(*c[0].noise_pct, 24.49, 0.01);
  EXPECT_NEAR(c[0].change_pct, 20.0, 1e-9);
  c = compare_kernel_times(before, profile(3, {times("k", {12, 13, 14}, 3, 0)}));
  EXPECT_EQ(c[0].verdict, Verdict::slower);
  c = compare_kernel_times(before, profile(3, {times("k", {6, 7, 8}, 3, 0)}));
  EXPECT_EQ(c[0].verdict, Verdict::faster);
}

TEST(ProfileDiff, OneRunUsesTheDispatchSpread) {
  // 100 dispatches of sd 0.1 ms in one run: the run's total has a standard error of 1 ms.
  const auto before = profile(1, {times("k", {100}, 100, 0.1)});
  auto c = compare_kernel_times(before, profile(1, {times("k", {104}, 100, 0.1)}));
  EXPECT_NEAR(*c[0].noise_pct, 3 * std::sqrt(2.0), 1e-9);
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

}  // namespace
}  // namespace rpl::analysis
