// best.patch: one hunk, with three lines of context, that patch(1) applies.
#include <gtest/gtest.h>

#include <rpl/optimize/source_edits.hpp>

namespace rpl::optimize {
namespace {

TEST(UnifiedDiff, OneHunkWithThreeLinesOfContext) {
  const std::string a = "1\n2\n3\n4\nold\n6\n7\n8\n9\n";
  const std::string b = "1\n2\n3\n4\nnew\nnewer\n6\n7\n8\n9\n";
  EXPECT_EQ(unified_diff(a, b, "k.cu"),
            "--- a/k.cu\n+++ b/k.cu\n@@ -2,7 +2,8 @@\n 2\n 3\n 4\n-old\n+new\n+newer\n 6\n 7\n 8\n");
  EXPECT_EQ(unified_diff(a, a, "k.cu"), "");
}

TEST(UnifiedDiff, ChangesAtTheEdgesAndAMissingFinalNewline) {
  EXPECT_EQ(unified_diff("a\nb\n", "z\nb\n", "f"), "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+z\n b\n");
  EXPECT_EQ(unified_diff("a\nb", "a\nc", "f"),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
  EXPECT_EQ(unified_diff("a\n", "a\nb\n", "f"), "--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n a\n+b\n");
}

}  // namespace
}  // namespace rpl::optimize
