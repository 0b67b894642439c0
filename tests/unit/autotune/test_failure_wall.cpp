#include <vector>

#include <gtest/gtest.h>

#include <rpl/autotune/search_space.hpp>

#include "failure_wall.hpp"

namespace rpl::autotune {
namespace {

// Three parameters of four values: a step is one value.
class FailureWall : public ::testing::Test {
 protected:
  SearchSpace space = parse_search_space(R"({"parameters": {"A": [1, 2, 4, 8], "B": [1, 2, 4, 8], "C": [1, 2, 4, 8]}})", "cube.json");
  size_t at(int a, int b, int c) { return *space.find({{"A", a}, {"B", b}, {"C", c}}); }
  bool past(size_t to, size_t from, std::vector<size_t> failures) { return steps_past_a_failure(space, to, from, failures); }
};

TEST_F(FailureWall, AStepToAFailuresColumnOnTheRowBesideIsLeftOut) {
  EXPECT_TRUE(past(at(1, 2, 1), at(1, 1, 1), {at(1, 2, 2)}));
  EXPECT_TRUE(past(at(1, 4, 1), at(1, 2, 1), {at(1, 4, 2)})) << "as a step up";
  EXPECT_TRUE(past(at(1, 1, 1), at(1, 2, 1), {at(1, 1, 2)})) << "as a step down";
  EXPECT_TRUE(past(at(1, 4, 1), at(1, 2, 1), {at(2, 4, 1)})) << "beside in another parameter";
  EXPECT_TRUE(past(at(1, 8, 1), at(1, 4, 1), {at(1, 2, 4), at(1, 8, 2)})) << "any of the failures";
}

TEST_F(FailureWall, AFailureFartherOnOrBehindLeavesTheStep) {
  EXPECT_FALSE(past(at(1, 2, 1), at(1, 1, 1), {at(1, 4, 1)})) << "farther along the same row";
  EXPECT_FALSE(past(at(1, 4, 1), at(1, 2, 1), {at(1, 1, 2)})) << "behind the anchor";
  EXPECT_FALSE(past(at(1, 4, 1), at(1, 2, 1), {at(1, 2, 2)})) << "beside the anchor, not past it";
  EXPECT_FALSE(past(at(1, 2, 1), at(1, 1, 1), {})) << "no failure";
}

// A Triton matmul's fastest block was one step of BN from a block one step off in BM and BK that
// ran out of shared memory (bench/data/triton_wall_h200_exhaustive.csv): two rows off is no wall.
TEST_F(FailureWall, AFailureOffTheRowInTwoParametersOrTwoStepsLeavesTheStep) {
  EXPECT_FALSE(past(at(2, 4, 2), at(2, 2, 2), {at(4, 4, 4)}));
  EXPECT_FALSE(past(at(2, 4, 2), at(2, 2, 2), {at(2, 4, 8)})) << "two steps off in one parameter";
}

}  // namespace
}  // namespace rpl::autotune
