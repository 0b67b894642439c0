// A kernel's findings of the tool that wrote its trace, gathered over its launches.
#include <gtest/gtest.h>

#include <rpl/analysis/tool_findings.hpp>

#include "trace_builder.hpp"

namespace rpl::test {
namespace {

TEST(ToolFindings, OnePerRuleAndPlaceTheLargestEstimateFirst) {
  TraceBuilder b;
  const int gemm = b.symbol("gemm"), fill = b.symbol("fill");
  b.dispatch(gemm, 100);
  b.dispatch(fill, 100);
  b.dispatch(gemm, 100);
  auto& f = b.trace.findings;
  f.push_back({0, "SpeedOfLight", "SOLBottleneck", "INF", "busy", "", std::nullopt});
  f.push_back({0, "Occupancy", "TheoreticalOccupancy", "OPT", "3 warps", "local", 40.0});
  f.push_back({0, "WorkloadDistribution", "WorkloadImbalance", "OPT", "SMs", "global", 5.0});
  f.push_back({0, "WorkloadDistribution", "WorkloadImbalance", "OPT", "L2 slices", "global", 14.5});
  f.push_back({1, "Occupancy", "TheoreticalOccupancy", "OPT", "fill's", "local", 90.0});
  f.push_back({2, "SpeedOfLight", "SOLBottleneck", "INF", "busy", "", std::nullopt});
  f.push_back({2, "Occupancy", "TheoreticalOccupancy", "OPT", "2 warps", "local", 60.0});
  f.push_back({2, "WorkloadDistribution", "WorkloadImbalance", "OPT", "SMs", "global", 6.0});

  const auto k = analysis::kernel_findings(b.trace, "gemm");
  ASSERT_EQ(k.size(), 4u);
  EXPECT_EQ(k[0].rule, "TheoreticalOccupancy");
  EXPECT_DOUBLE_EQ(*k[0].speedup_percent, 60) << "the largest of its launches, not another kernel's 90";
  EXPECT_EQ(k[0].text, "2 warps") << "the words of that launch";
  EXPECT_EQ(k[0].launches, 2u);
  EXPECT_EQ(k[1].text, "L2 slices") << "the second WorkloadImbalance of a launch is a finding of its own";
  EXPECT_EQ(k[1].launches, 1u);
  EXPECT_EQ(k[2].text, "SMs");
  EXPECT_DOUBLE_EQ(*k[2].speedup_percent, 6);
  EXPECT_EQ(k[3].rule, "SOLBottleneck") << "without an estimate: last";
  EXPECT_FALSE(k[3].speedup_percent);
  EXPECT_EQ(k[3].launches, 2u);
  EXPECT_TRUE(analysis::kernel_findings(b.trace, "absent").empty());
}

}  // namespace
}  // namespace rpl::test
