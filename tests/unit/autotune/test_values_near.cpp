#include <vector>

#include <gtest/gtest.h>

#include <rpl/autotune/search_space.hpp>

#include "values_near.hpp"

namespace rpl::autotune {
namespace {

// ROWS has ten values (a step crosses two), B four (a step crosses one), as the stencil's 410.
class ValuesNearTest : public ::testing::Test {
 protected:
  SearchSpace space = parse_search_space(R"({"parameters": {"ROWS": [1, 2, 3, 4, 6, 8, 12, 16, 24, 32], "B": [1, 2, 4, 8]}})", "rows.json");
  size_t at(int rows, int b) { return *space.find({{"ROWS", rows}, {"B", b}}); }
  bool brings_new(size_t c, size_t anchor, std::vector<size_t> measured) { return ValuesNear(space, anchor, measured).brings_new(c); }
};

TEST_F(ValuesNearTest, AValueNoMeasuredConfigurationNearTheAnchorHasIsNew) {
  EXPECT_TRUE(brings_new(at(4, 2), at(6, 2), {at(6, 2), at(3, 2), at(12, 2)})) << "the rows the climb jumped over";
  EXPECT_FALSE(brings_new(at(3, 4), at(6, 2), {at(6, 2), at(3, 2)})) << "3 rows measured near, with another B";
  EXPECT_FALSE(brings_new(at(8, 2), at(6, 2), {at(6, 2), at(8, 1)})) << "8 rows measured a step of B off";
}

TEST_F(ValuesNearTest, AValueMeasuredOnlyFarFromTheAnchorIsStillNew) {
  EXPECT_TRUE(brings_new(at(4, 2), at(6, 2), {at(6, 2), at(4, 8)})) << "B two steps off";
  EXPECT_TRUE(brings_new(at(16, 1), at(12, 1), {at(12, 1), at(16, 4), at(16, 8)})) << "16 rows only two and three steps of B off";
}

TEST_F(ValuesNearTest, AParameterOfOneValueAStepOrdersNothing) {
  EXPECT_FALSE(brings_new(at(6, 4), at(6, 2), {at(6, 2)})) << "B=4 measured nowhere, but a step of B reaches one value";
}

}  // namespace
}  // namespace rpl::autotune
