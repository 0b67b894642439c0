#include <gtest/gtest.h>

#include <rpl/analysis/profile_summary.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"
#include "trace_builder.hpp"

namespace rpl::analysis {
namespace {

TEST(ProfileSummary, Mi300xThreeRuns) {
  const auto dir = test::fresh_dir("summary");
  auto trace = trace::read_rocpd({test::scenario("mi300x", 1, dir), test::scenario("mi300x", 2, dir), test::scenario("mi300x", 3, dir)});
  auto s = summarize_trace(trace, {});
  ASSERT_TRUE(s.kernel && s.gpu && s.resources && s.occupancy);
  EXPECT_EQ(s.kernel->mangled_name, "_Z13matmul_kernelPKfS0_Pfiii");
  EXPECT_EQ(s.kernel->dispatches, 120u);
  EXPECT_EQ(s.stability.runs, 3);
  EXPECT_EQ(s.stability.samples, 120u);
  EXPECT_EQ(s.runtime_ms, s.stability.mean_ms);
  EXPECT_NEAR(s.runtime_ms, 1.02, 0.02);  // 1000 + 10 * run microseconds, +-2 % jitter
  EXPECT_EQ(s.gpu->architecture, "gfx942");
  EXPECT_EQ(s.gpu->compute_units, 304);
  EXPECT_EQ(s.resources->vgpr_per_thread, 128);
  EXPECT_EQ(s.resources->static_lds_bytes, 16384);
  EXPECT_EQ(s.resources->dynamic_lds_bytes, 8192);
  // 128 VGPRs allow 4 workgroups of 4 waves; 24 KiB of LDS allow 2.
  EXPECT_EQ(s.occupancy->active_workgroups_per_cu, 2);
  EXPECT_EQ(s.occupancy->limiter, "lds");
  EXPECT_DOUBLE_EQ(s.occupancy->theoretical, 0.25);
}

TEST(ProfileSummary, UnknownArchitectureLeavesOccupancyNullWithAWarning) {
  test::TraceBuilder b;
  b.trace.agents[0].name = "gfx1250";
  b.dispatch(b.symbol("_Z1kv", "k()"), 1000);
  auto s = summarize_trace(b.trace, {});
  EXPECT_FALSE(s.occupancy.has_value());
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_NE(s.warnings.back().find("no occupancy rules for architecture 'gfx1250'"), std::string::npos);
}

TEST(ProfileSummary, SeveralBlockSizesAreWarned) {
  test::TraceBuilder b;
  int k = b.symbol("_Z1kv", "k()");
  b.dispatch(k, 1000, 0, 256);
  b.dispatch(k, 2000, 0, 128);
  auto s = summarize_trace(b.trace, {});
  EXPECT_EQ(s.kernel->block[0], 128u);  // the longest dispatch's
  bool warned = false;
  for (const auto& w : s.warnings) warned |= w.find("2 different block sizes") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ProfileSummary, Wallclock) {
  auto s = summarize_wallclock({0.010, 0.012, 0.011});
  EXPECT_EQ(s.backend, "wallclock");
  EXPECT_FALSE(s.kernel || s.gpu || s.resources || s.occupancy);
  EXPECT_NEAR(s.runtime_ms, 11.0, 1e-9);
  EXPECT_EQ(s.stability.runs, 3);
}

}  // namespace
}  // namespace rpl::analysis
