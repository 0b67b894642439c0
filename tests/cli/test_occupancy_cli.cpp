#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {

TEST(CliOccupancy, AmdJsonIsValidAndGolden) {
  auto r = run_cli({"occupancy", "--arch", "gfx90a", "--block", "256", "--vgpr", "22", "--agpr", "32", "--sgpr", "14", "--lds",
                    "20000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "occupancy"), "");
  EXPECT_EQ(golden_difference(r.out, "occupancy_gfx90a.json"), "");
}

TEST(CliOccupancy, NvidiaJsonIsValidAndGolden) {
  auto r = run_cli({"occupancy", "--arch", "sm_90", "--block", "256", "--regs", "64", "--smem", "49152", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "occupancy"), "");
  EXPECT_EQ(golden_difference(r.out, "occupancy_sm_90.json"), "");
}

TEST(CliOccupancy, HumanOutputNamesTheLimiter) {
  auto r = run_cli({"occupancy", "--arch", "gfx1030", "--block", "128", "--vgpr", "96"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("62.5 % (40 of 64 waves per WGP; 10 workgroups per WGP), limited by vgpr"), std::string::npos) << r.out;
}

TEST(CliOccupancy, EveryArchitectureOfTheIssue) {
  for (const char* arch : {"gfx908", "gfx90a", "gfx942", "gfx1030"}) {
    auto r = run_cli({"occupancy", "--arch", arch, "--block", "256", "--vgpr", "64", "--json"});
    ASSERT_EQ(r.exit_code, 0) << arch << r.err;
    EXPECT_EQ(schema_errors(r.out, "occupancy"), "") << arch;
  }
  for (const char* arch : {"sm_80", "sm_86", "sm_89", "sm_90"}) {
    auto r = run_cli({"occupancy", "--arch", arch, "--block", "256", "--regs", "64", "--json"});
    ASSERT_EQ(r.exit_code, 0) << arch << r.err;
    EXPECT_EQ(schema_errors(r.out, "occupancy"), "") << arch;
  }
}

}  // namespace
}  // namespace rpl::test
