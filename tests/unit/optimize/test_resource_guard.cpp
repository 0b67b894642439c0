// What a candidate's code object predicts: spills and a lower occupancy reject an unrolled loop
// before it is timed, and are advisories on every other candidate, which its time judges.
#include <gtest/gtest.h>

#include <rpl/optimize/resource_guard.hpp>

namespace rpl::optimize {
namespace {

analysis::InspectedKernel kernel(int registers, double occupancy, int64_t scratch = 0) {
  analysis::InspectedKernel k;
  k.resources.vgpr_per_thread = registers;
  k.resources.scratch_bytes = scratch;
  hal::OccupancyResult o;
  o.theoretical = occupancy;
  o.limiter = "registers";
  k.occupancy = o;
  return k;
}

TEST(ResourceGuard, ARowInRegistersHalvesTheOccupancy) {
  const auto found = compare_resources(kernel(31, 1.0), kernel(55, 0.5));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].guard, "occupancy");
  EXPECT_EQ(found[0].reason, "theoretical occupancy 50% < the original's 100% (55 registers per thread, limited by registers)");
}

TEST(ResourceGuard, ASpillingVariantAndOneThatChangesNothing) {
  const auto found = compare_resources(kernel(255, 0.25), kernel(255, 0.25, 96));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].guard, "spills");
  EXPECT_NE(found[0].reason.find("96 bytes of local memory per thread"), std::string::npos);
  EXPECT_TRUE(compare_resources(kernel(31, 1.0), kernel(32, 1.0)).empty());
  EXPECT_TRUE(compare_resources(kernel(40, 0.5, 16), kernel(40, 0.5, 32)).empty()) << "the original spills already";
}

TEST(ResourceGuard, OnlyUnrolledLoopsArePrefiltered) {
  EXPECT_TRUE(resources_prefilter("unroll"));
  for (const char* kind : {"file", "llm", "launch_bounds", "restrict"}) EXPECT_FALSE(resources_prefilter(kind)) << kind;
}

}  // namespace
}  // namespace rpl::optimize
