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

TEST(CliOccupancy, EveryCurrentArchitecture) {
  for (const char* arch : {"gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150",
                           "gfx1151", "gfx1152", "gfx1200", "gfx1201"}) {
    auto r = run_cli({"occupancy", "--arch", arch, "--block", "256", "--vgpr", "64", "--json"});
    ASSERT_EQ(r.exit_code, 0) << arch << r.err;
    EXPECT_EQ(schema_errors(r.out, "occupancy"), "") << arch;
  }
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_120"}) {
    auto r = run_cli({"occupancy", "--arch", arch, "--block", "256", "--regs", "64", "--json"});
    ASSERT_EQ(r.exit_code, 0) << arch << r.err;
    EXPECT_EQ(schema_errors(r.out, "occupancy"), "") << arch;
  }
}

// Where the new architectures differ from their neighbours, the figures follow the tables' sources.
TEST(CliOccupancy, NewArchitecturesDifferWhereTheirHardwareDoes) {
  auto waves = [](std::vector<std::string> args) {
    args.insert(args.begin(), "occupancy");
    args.push_back("--json");
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  // 96 VGPRs, wave32: 1024/96 -> 10 waves per SIMD on gfx1030; 1536/96 -> 16 on gfx1100 (1.5x file).
  EXPECT_EQ(waves({"--arch", "gfx1030", "--block", "32", "--vgpr", "96"})["waves_per_simd"], 10);
  EXPECT_EQ(waves({"--arch", "gfx1100", "--block", "32", "--vgpr", "96"})["waves_per_simd"], 16);
  // RDNA 3.5: Strix Halo (gfx1151) has the larger file, Strix Point (gfx1150) and RDNA3's smaller
  // parts (gfx1102) do not.
  EXPECT_EQ(waves({"--arch", "gfx1151", "--block", "32", "--vgpr", "96"})["waves_per_simd"], 16);
  EXPECT_EQ(waves({"--arch", "gfx1150", "--block", "32", "--vgpr", "96"})["waves_per_simd"], 10);
  EXPECT_EQ(waves({"--arch", "gfx1102", "--block", "32", "--vgpr", "96"})["waves_per_simd"], 10);
  // 80 KiB of LDS: no workgroup on gfx942's 64 KiB would be bad input; gfx950 holds two in 160 KiB.
  EXPECT_EQ(waves({"--arch", "gfx950", "--block", "256", "--lds", "81920"})["active_workgroups_per_cu"], 2);
  // Turing: 1024 threads per SM; RTX 50 (sm_120): 1536 and 24 blocks; B200: as H100.
  EXPECT_EQ(waves({"--arch", "sm_75", "--block", "256"})["max_waves_per_cu"], 32);
  EXPECT_EQ(waves({"--arch", "sm_120", "--block", "32"})["active_workgroups_per_cu"], 24);
  EXPECT_EQ(waves({"--arch", "sm_100", "--block", "32"})["active_workgroups_per_cu"], 32);
}

}  // namespace
}  // namespace rpl::test
