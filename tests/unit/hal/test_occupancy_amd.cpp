// AMD occupancy cases worked by hand from LLVM's rules (reference/rocm.md §4.2).
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/hal/occupancy.hpp>

namespace rpl::hal {
namespace {

OccupancyResult occ(const char* arch, int block, int vgpr, int agpr = 0, int sgpr = 0, int64_t lds = 0, int wave = 0) {
  const AmdArch* a = find_amd_arch(arch);
  EXPECT_NE(a, nullptr);
  return amd_occupancy(*a, {vgpr, agpr, sgpr, lds, wave}, block);
}

std::optional<int64_t> limit(const OccupancyResult& r, const std::string& name) {
  for (const auto& l : r.limits) {
    if (l.name == name) return l.workgroups;
  }
  ADD_FAILURE() << "no limit " << name;
  return std::nullopt;
}

TEST(AmdOccupancy, Gfx90aVgprGranuleOf8In512) {
  auto r = occ("gfx90a", 256, 128);
  EXPECT_EQ(r.waves_per_simd, 4.0);
  EXPECT_EQ(r.active_workgroups_per_cu, 4);
  EXPECT_EQ(r.active_waves_per_cu, 16);
  EXPECT_EQ(r.max_waves_per_cu, 32);
  EXPECT_DOUBLE_EQ(r.theoretical, 0.5);
  EXPECT_EQ(r.limiter, "vgpr");
  EXPECT_EQ(occ("gfx90a", 256, 96).waves_per_simd, 5.0);   // 512 / 96
  EXPECT_EQ(occ("gfx90a", 256, 65).waves_per_simd, 7.0);   // alignTo(65, 8) = 72; 512 / 72
  EXPECT_EQ(occ("gfx942", 256, 256).waves_per_simd, 2.0);
  EXPECT_EQ(occ("gfx942", 256, 512).waves_per_simd, 1.0);
}

TEST(AmdOccupancy, HardwareCapIsNamedFirstOnTies) {
  auto r = occ("gfx942", 256, 64);
  EXPECT_DOUBLE_EQ(r.theoretical, 1.0);
  EXPECT_EQ(r.limiter, "waves");
  EXPECT_EQ(r.limiters, (std::vector<std::string>{"waves", "vgpr", "sgpr"}));
}

TEST(AmdOccupancy, Gfx90aAgprsShareTheFileAfterAligningArchVgprsTo4) {
  EXPECT_EQ(occ("gfx90a", 256, 22, 32).waves_per_simd, 8.0);   // 24 + 32 = 56 -> 9, capped at 8
  EXPECT_EQ(occ("gfx90a", 256, 100, 100).waves_per_simd, 2.0); // 200 -> 512 / 200
  EXPECT_EQ(occ("gfx90a", 256, 126, 128).waves_per_simd, 2.0); // 128 + 128 = 256
  EXPECT_EQ(occ("gfx90a", 256, 125, 3).waves_per_simd, 3.0);   // 128 + 3 = 131 -> 136 -> 512 / 136
}

TEST(AmdOccupancy, Gfx908AgprsHaveTheirOwnFile) {
  EXPECT_EQ(occ("gfx908", 256, 64, 64).waves_per_simd, 4.0);   // max(64, 64) in 256
  EXPECT_EQ(occ("gfx908", 256, 128, 200).waves_per_simd, 1.0);
  EXPECT_EQ(occ("gfx908", 256, 8).waves_per_simd, 10.0);       // gfx908 allows 10 waves per SIMD
}

TEST(AmdOccupancy, SgprsLimitOnlyOnGfx9) {
  auto r = occ("gfx90a", 256, 32, 0, 104);
  EXPECT_EQ(r.waves_per_simd, 7.0);
  EXPECT_EQ(r.limiter, "sgpr");
  EXPECT_EQ(occ("gfx90a", 256, 32, 0, 100).waves_per_simd, 8.0);
  EXPECT_EQ(occ("gfx908", 256, 8, 0, 80).waves_per_simd, 10.0);
  EXPECT_EQ(occ("gfx908", 256, 8, 0, 88).waves_per_simd, 9.0);
  EXPECT_EQ(occ("gfx908", 256, 8, 0, 89).waves_per_simd, 8.0);
  EXPECT_EQ(limit(occ("gfx1030", 128, 32, 0, 128), "sgpr"), std::nullopt);
}

TEST(AmdOccupancy, LdsRoundsTo512ByteGranulesOf64KiB) {
  EXPECT_EQ(limit(occ("gfx90a", 256, 32, 0, 0, 32768), "lds"), 2);
  EXPECT_EQ(limit(occ("gfx90a", 256, 32, 0, 0, 32769), "lds"), 1);  // 33280 allocated
  EXPECT_EQ(limit(occ("gfx90a", 256, 32, 0, 0, 0), "lds"), std::nullopt);
  // 60,000 bytes per 1024-thread block: one workgroup, 16 of 32 waves.
  auto r = occ("gfx90a", 1024, 3, 0, 6, 60000);
  EXPECT_EQ(r.active_workgroups_per_cu, 1);
  EXPECT_EQ(r.waves_per_simd, 4.0);
  EXPECT_EQ(r.limiter, "lds");
  auto too_big = occ("gfx942", 256, 32, 0, 0, 70000);
  EXPECT_EQ(too_big.active_workgroups_per_cu, 0);
  EXPECT_EQ(too_big.theoretical, 0.0);
}

TEST(AmdOccupancy, BarrierSlotsCapWorkgroupsOfSeveralWaves) {
  auto one_wave = occ("gfx90a", 64, 8);
  EXPECT_EQ(limit(one_wave, "workgroups"), 32);  // single-wave workgroups use no barrier
  EXPECT_EQ(one_wave.active_workgroups_per_cu, 32);
  auto two_waves = occ("gfx90a", 128, 8);
  EXPECT_EQ(limit(two_waves, "workgroups"), 16);
  EXPECT_DOUBLE_EQ(two_waves.theoretical, 1.0);
  auto three_waves = occ("gfx90a", 192, 8);
  EXPECT_EQ(three_waves.active_workgroups_per_cu, 10);  // 32 wave slots / 3
  EXPECT_DOUBLE_EQ(three_waves.theoretical, 30.0 / 32.0);
  auto small = occ("gfx1030", 64, 8);                   // wave32: 2 waves, 32 barriers per WGP
  EXPECT_EQ(limit(small, "workgroups"), 32);
}

TEST(AmdOccupancy, Gfx1030Wave32AndWave64) {
  auto r = occ("gfx1030", 128, 96);
  EXPECT_EQ(r.unit, "WGP");
  EXPECT_EQ(r.wave_size, 32);
  EXPECT_EQ(r.waves_per_simd, 10.0);                     // 1024 / 96
  EXPECT_EQ(occ("gfx1030", 128, 100).waves_per_simd, 9.0);  // alignTo(100, 16) = 112
  EXPECT_EQ(occ("gfx1030", 256, 96, 0, 0, 0, 64).waves_per_simd, 5.0);  // wave64: 512 / 96
  EXPECT_EQ(occ("gfx1030", 128, 8).max_waves_per_cu, 64);
}

TEST(AmdOccupancy, BadInputs) {
  const AmdArch& gfx942 = *find_amd_arch("gfx942");
  EXPECT_THROW(amd_occupancy(gfx942, {}, 0), Error);
  EXPECT_THROW(amd_occupancy(gfx942, {}, 1025), Error);
  EXPECT_THROW(amd_occupancy(gfx942, {32, 0, 0, 0, 32}, 256), Error);  // no wave32 on gfx9
  EXPECT_THROW(amd_occupancy(gfx942, {-1, 0, 0, 0, 0}, 256), Error);
}

TEST(AmdOccupancy, RegisterWavesMatchTheCompilersRule) {
  const AmdArch& gfx90a = *find_amd_arch("gfx90a");
  EXPECT_EQ(amd_register_waves_per_simd(gfx90a, {3, 0, 11, 0, 0}), 8);
  EXPECT_EQ(amd_register_waves_per_simd(gfx90a, {128, 0, 11, 0, 0}), 4);
  EXPECT_EQ(amd_register_waves_per_simd(gfx90a, {32, 0, 102, 0, 0}), 7);
}

}  // namespace
}  // namespace rpl::hal
