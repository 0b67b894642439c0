#include <gtest/gtest.h>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/core/error.hpp>

#include "trace_builder.hpp"

namespace rpl::analysis {
namespace {

TEST(KernelSelection, RuntimeHelpersAreRecognized) {
  EXPECT_TRUE(is_runtime_helper("__amd_rocclr_fillBufferAligned"));
  EXPECT_TRUE(is_runtime_helper("void __amd_rocclr_copyBuffer<int>(int*)"));
  EXPECT_TRUE(is_runtime_helper("hipMemsetKernel"));
  EXPECT_TRUE(is_runtime_helper("hsa_blit"));
  EXPECT_FALSE(is_runtime_helper("matmul(float*)"));
  EXPECT_FALSE(is_runtime_helper("_Z3hipPf"));
}

TEST(KernelSelection, LargestTotalTimeWinsAndHelpersAreSkipped) {
  test::TraceBuilder b;
  int helper = b.symbol("__amd_rocclr_fillBufferAligned");
  int a = b.symbol("_Z1av", "a()");
  int c = b.symbol("_Z1cv", "c()");
  for (int i = 0; i < 3; ++i) b.dispatch(helper, 10'000);  // largest total, but a helper
  b.dispatch(a, 4000);
  b.dispatch(a, 4000);
  b.dispatch(c, 7000);  // longest single non-helper dispatch, smaller total
  auto sel = select_dominant_kernel(b.trace, std::nullopt);
  EXPECT_EQ(sel.kernel.display_name, "a()");
  EXPECT_EQ(sel.kernel.total_ns, 8000);
  EXPECT_EQ(sel.kernel.longest_ns, 4000);
  EXPECT_EQ(sel.all_kernels_ns, 45'000);
  EXPECT_NEAR(sel.time_fraction, 8000.0 / 45000.0, 1e-12);
  ASSERT_EQ(sel.warnings.size(), 1u);
  EXPECT_NE(sel.warnings[0].find("no single kernel dominates"), std::string::npos);
}

TEST(KernelSelection, SameKernelAcrossRunsIsOneGroup) {
  test::TraceBuilder b;
  int run1 = b.symbol("_Z1kv", "k()");
  int run2 = b.symbol("_Z1kv", "k()");
  int other = b.symbol("_Z1ov", "o()");
  b.dispatch(run1, 3000, 0);
  b.dispatch(run2, 3000, 1);
  b.dispatch(other, 5000, 0);
  auto groups = group_by_kernel(b.trace);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].display_name, "k()");
  EXPECT_EQ(groups[0].dispatches.size(), 2u);
  auto sel = select_dominant_kernel(b.trace, std::nullopt);
  EXPECT_EQ(sel.kernel.display_name, "k()");
  EXPECT_TRUE(sel.warnings.empty());
}

TEST(KernelSelection, RegexPicksTheLargestMatchOnEitherName) {
  test::TraceBuilder b;
  int big = b.symbol("_Z3bigv", "big()");
  int small = b.symbol("_Z8small_kv", "small_k()");
  b.dispatch(big, 9000);
  b.dispatch(small, 1000);
  EXPECT_EQ(select_dominant_kernel(b.trace, std::string("small")).kernel.display_name, "small_k()");
  EXPECT_EQ(select_dominant_kernel(b.trace, std::string("^_Z3")).kernel.display_name, "big()");
}

TEST(KernelSelection, BadRegexAndNoMatchAreBadInput) {
  test::TraceBuilder b;
  b.dispatch(b.symbol("_Z1kv", "k()"), 1000);
  try {
    select_dominant_kernel(b.trace, std::string("k("));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find("not a valid regular expression"), std::string::npos);
  }
  try {
    select_dominant_kernel(b.trace, std::string("nothing"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_EQ(std::string(e.what()), "--kernel 'nothing' matches none of the 1 kernels in the trace");
  }
}

TEST(KernelSelection, OnlyHelpersFallBackToTheLongestDispatch) {
  test::TraceBuilder b;
  int fill = b.symbol("__amd_rocclr_fillBufferAligned");
  int copy = b.symbol("__amd_rocclr_copyBuffer");
  for (int i = 0; i < 5; ++i) b.dispatch(fill, 1000);
  b.dispatch(copy, 3000);
  auto sel = select_dominant_kernel(b.trace, std::nullopt);
  EXPECT_EQ(sel.kernel.display_name, "__amd_rocclr_copyBuffer");
  ASSERT_FALSE(sel.warnings.empty());
  EXPECT_NE(sel.warnings[0].find("every kernel in the trace is a runtime helper"), std::string::npos);
}

TEST(KernelSelection, EmptyTraceIsBadInput) {
  test::TraceBuilder b;
  EXPECT_THROW(select_dominant_kernel(b.trace, std::nullopt), Error);
}

}  // namespace
}  // namespace rpl::analysis
