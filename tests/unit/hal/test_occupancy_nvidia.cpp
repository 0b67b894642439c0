// NVIDIA occupancy cases worked by hand (reference/cuda.md §6 worked example).
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/hal/occupancy.hpp>

namespace rpl::hal {
namespace {

OccupancyResult occ(const char* arch, int block, int regs, int64_t smem = 0, int64_t dyn = 0) {
  NvidiaKernelResources k;
  k.regs_per_thread = regs;
  k.static_smem = smem;
  k.dynamic_smem = dyn;
  return nvidia_occupancy(*find_nvidia_arch(arch), k, block);
}

TEST(NvidiaOccupancy, H100RegistersAndSharedMemory) {
  auto r = occ("sm_90", 256, 64);
  EXPECT_EQ(r.active_workgroups_per_cu, 4);  // 2048 regs per warp, 8 warps per sub-partition
  EXPECT_DOUBLE_EQ(r.theoretical, 0.5);
  EXPECT_EQ(r.limiter, "registers");
  auto s = occ("sm_90", 128, 16, 48 * 1024);
  EXPECT_EQ(s.active_workgroups_per_cu, 4);  // (49152 + 1024) -> 233472 / 50176
  EXPECT_EQ(s.limiter, "shared_memory");
  EXPECT_FALSE(s.waves_per_simd.has_value());
}

TEST(NvidiaOccupancy, WarpsBlocksAndImpossibleKernels) {
  auto a100 = occ("sm_80", 1024, 32);
  EXPECT_EQ(a100.active_workgroups_per_cu, 2);
  EXPECT_DOUBLE_EQ(a100.theoretical, 1.0);
  auto ampere_consumer = occ("sm_86", 1024, 16);
  EXPECT_EQ(ampere_consumer.active_workgroups_per_cu, 1);  // 48 warps per SM
  EXPECT_NEAR(ampere_consumer.theoretical, 32.0 / 48.0, 1e-12);
  auto tiny = occ("sm_90", 32, 16);
  EXPECT_EQ(tiny.active_workgroups_per_cu, 32);  // max blocks per SM
  EXPECT_EQ(tiny.limiter, "blocks");
  EXPECT_EQ(occ("sm_90", 1024, 255).active_workgroups_per_cu, 0);  // 262144 registers per block
  EXPECT_EQ(occ("sm_90", 256, 257).active_workgroups_per_cu, 0);
  EXPECT_EQ(occ("sm_90", 256, 16, 0, 230 * 1024).active_workgroups_per_cu, 0);  // beyond the opt-in limit
}

TEST(NvidiaOccupancy, BadInputs) {
  const NvidiaArch& sm90 = *find_nvidia_arch("sm_90");
  EXPECT_THROW(nvidia_occupancy(sm90, {}, 0), Error);
  EXPECT_THROW(nvidia_occupancy(sm90, {}, 2048), Error);
  NvidiaKernelResources k;
  k.carveout_percent = 101;
  EXPECT_THROW(nvidia_occupancy(sm90, k, 256), Error);
}

}  // namespace
}  // namespace rpl::hal
