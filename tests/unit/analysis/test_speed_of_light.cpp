// ncu's percentages of peak of each kernel, from counter values on its dispatches.
#include <gtest/gtest.h>

#include <rpl/analysis/speed_of_light.hpp>

#include "trace_builder.hpp"

namespace rpl::test {
namespace {

uint32_t counter(trace::Trace& t, const std::string& name) {
  for (uint32_t i = 0; i < t.counter_names.size(); ++i) {
    if (t.counter_names[i] == name) return i;
  }
  t.counter_names.push_back(name);
  return static_cast<uint32_t>(t.counter_names.size() - 1);
}

TEST(SpeedOfLight, EachPercentageIsTheKernelsMeanWeightedByDuration) {
  TraceBuilder b;
  const int gemm = b.symbol("gemm"), fill = b.symbol("fill");
  auto& t = b.trace;
  b.dispatch(gemm, 100);
  t.counter_values.push_back({0, counter(t, analysis::kSmThroughputMetric), 90});
  t.counter_values.push_back({0, counter(t, analysis::kDramThroughputMetric), 10});
  b.dispatch(fill, 1000);
  t.counter_values.push_back({1, counter(t, analysis::kSmThroughputMetric), 5});
  b.dispatch(gemm, 300);
  t.counter_values.push_back({2, counter(t, analysis::kSmThroughputMetric), 70});
  b.dispatch(gemm, 50);  // not measured

  const auto sol = analysis::kernel_speed_of_light(t, "gemm");
  ASSERT_TRUE(sol);
  EXPECT_EQ(sol->measured_dispatches, 2u);
  EXPECT_DOUBLE_EQ(*sol->sm_percent, (100 * 90 + 300 * 70) / 400.0);
  EXPECT_DOUBLE_EQ(*sol->dram_percent, 10) << "of the one dispatch that has it";
  EXPECT_FALSE(sol->memory_percent);
  EXPECT_DOUBLE_EQ(*analysis::kernel_speed_of_light(t, "fill")->sm_percent, 5);
  EXPECT_FALSE(analysis::kernel_speed_of_light(t, "absent"));
  const auto all = analysis::speed_of_light_by_kernel(t);
  ASSERT_EQ(all.size(), 2u) << "gemm and fill, in one pass";
  EXPECT_DOUBLE_EQ(*all.at("gemm").sm_percent, *sol->sm_percent);
  EXPECT_EQ(all.at("fill").measured_dispatches, 1u);
  t.counter_names = {"dram__bytes.sum", "dram__bytes.sum2", "sm__cycles_elapsed.avg"};
  EXPECT_FALSE(analysis::kernel_speed_of_light(t, "gemm")) << "other counters only";
  EXPECT_TRUE(analysis::speed_of_light_by_kernel(t).empty());
}

}  // namespace
}  // namespace rpl::test
