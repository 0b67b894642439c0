// Our NVIDIA occupancy calculator against NVIDIA's own cudaOccMaxActiveBlocksPerMultiprocessor
// (the toolkit's header-only cuda_occupancy.h, compiled here for the CPU) on random configurations.
#include <cuda_occupancy.h>

#include <algorithm>
#include <climits>
#include <iostream>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include <rpl/hal/occupancy.hpp>

namespace rpl::hal {
namespace {

constexpr int kConfigsPerArch = 8000;

cudaOccDeviceProp device_props(const NvidiaArch& a) {
  cudaOccDeviceProp p;
  p.computeMajor = a.cc_major;
  p.computeMinor = a.cc_minor;
  p.maxThreadsPerBlock = a.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  p.regsPerBlock = a.regs_per_block;
  p.regsPerMultiprocessor = a.regs_per_sm;
  p.warpSize = a.warp_size;
  p.sharedMemPerBlock = static_cast<size_t>(a.smem_per_block);
  p.sharedMemPerMultiprocessor = static_cast<size_t>(a.smem_per_sm);
  p.numSms = std::max(1, a.product.compute_units);  // the header wants a count; occupancy does not use it
  p.sharedMemPerBlockOptin = static_cast<size_t>(a.smem_per_block_optin);
  p.reservedSharedMemPerBlock = static_cast<size_t>(a.reserved_smem_per_block);
  return p;
}

std::optional<int64_t> from_header(int value) { return value == INT_MAX ? std::nullopt : std::optional<int64_t>(value); }

std::optional<int64_t> ours(const OccupancyResult& r, const std::string& name) {
  for (const auto& l : r.limits) {
    if (l.name == name) return l.workgroups;
  }
  return std::nullopt;
}

struct Totals {
  int compared = 0;
  int mismatches = 0;
};

Totals compare_arch(const char* arch_name, uint64_t seed) {
  const NvidiaArch& arch = *find_nvidia_arch(arch_name);
  const cudaOccDeviceProp props = device_props(arch);
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  Totals t;
  for (int i = 0; i < kConfigsPerArch; ++i) {
    // Spread inputs over the ranges where each limit can bind, edges included.
    const int block = static_cast<int>(pick(0, 9) == 0 ? 32 * pick(1, 32) : pick(1, arch.max_threads_per_block));
    const int regs = static_cast<int>(pick(0, 4) == 0 ? pick(240, 260) : pick(0, 128));
    const int64_t static_smem = pick(0, 2) == 0 ? 0 : pick(0, 64 * 1024);
    const int64_t dynamic_smem = pick(0, 2) == 0 ? 0 : pick(0, 240 * 1024);
    const int64_t max_dynamic = pick(0, 240 * 1024);
    const bool optin = pick(0, 1) == 1;
    const int carveout = pick(0, 3) == 0 ? -1 : static_cast<int>(pick(0, 100));
    const int cache = static_cast<int>(pick(0, 3));
    const int barriers = static_cast<int>(pick(0, 3));

    cudaOccFuncAttributes attrs;
    attrs.maxThreadsPerBlock = 1024;
    attrs.numRegs = regs;
    attrs.sharedSizeBytes = static_cast<size_t>(static_smem);
    attrs.partitionedGCConfig = PARTITIONED_GC_OFF;
    attrs.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
    attrs.maxDynamicSharedSizeBytes = static_cast<size_t>(max_dynamic);
    attrs.numBlockBarriers = barriers;
    cudaOccDeviceState state;
    state.cacheConfig = static_cast<cudaOccCacheConfig>(cache);
    state.carveoutConfig = carveout;
    cudaOccResult result;
    const cudaOccError status =
        cudaOccMaxActiveBlocksPerMultiprocessor(&result, &props, &attrs, &state, block, static_cast<size_t>(dynamic_smem));

    NvidiaKernelResources k;
    k.regs_per_thread = regs;
    k.static_smem = static_smem;
    k.dynamic_smem = dynamic_smem;
    k.max_dynamic_smem = max_dynamic;
    k.shmem_limit_optin = optin;
    k.carveout_percent = carveout;
    k.cache_preference = static_cast<CachePreference>(cache == 0 ? 0 : cache == 1 ? 1 : cache == 2 ? 2 : 3);
    k.barriers = barriers;
    ++t.compared;
    std::string why;
    try {
      const OccupancyResult r = nvidia_occupancy(arch, k, block);
      if (status != CUDA_OCC_SUCCESS) {
        why = "header failed with " + std::to_string(status) + ", we did not";
      } else if (r.active_workgroups_per_cu != result.activeBlocksPerMultiprocessor) {
        why = "active blocks " + std::to_string(r.active_workgroups_per_cu) + " vs " +
              std::to_string(result.activeBlocksPerMultiprocessor);
      } else if (ours(r, "registers") != from_header(result.blockLimitRegs) ||
                 ours(r, "shared_memory") != from_header(result.blockLimitSharedMem) ||
                 ours(r, "warps") != from_header(result.blockLimitWarps) ||
                 ours(r, "blocks") != from_header(result.blockLimitBlocks) ||
                 ours(r, "barriers") != from_header(result.blockLimitBarriers)) {
        why = "a per-resource limit differs";
      } else {
        // Every resource the header names as limiting must be among ours, and the reverse.
        std::set<std::string> header_limiters;
        const int limit = result.activeBlocksPerMultiprocessor;
        if (result.blockLimitWarps == limit) header_limiters.insert("warps");
        if (result.blockLimitRegs == limit) header_limiters.insert("registers");
        if (result.blockLimitSharedMem == limit) header_limiters.insert("shared_memory");
        if (result.blockLimitBlocks == limit) header_limiters.insert("blocks");
        if (result.blockLimitBarriers == limit) header_limiters.insert("barriers");
        if (header_limiters != std::set<std::string>(r.limiters.begin(), r.limiters.end())) why = "limiters differ";
        if (!(result.limitingFactors & OCC_LIMIT_BARRIERS) && r.limiter == "barriers") why = "barrier limiter differs";
      }
    } catch (const std::exception& e) {
      if (status == CUDA_OCC_SUCCESS) why = std::string("we failed (") + e.what() + "), the header did not";
    }
    if (!why.empty()) {
      if (++t.mismatches <= 5) {
        ADD_FAILURE() << arch_name << ": " << why << " for block " << block << ", regs " << regs << ", static " << static_smem
                      << ", dynamic " << dynamic_smem << ", max dynamic " << max_dynamic << ", optin " << optin
                      << ", carveout " << carveout << ", cache " << cache << ", barriers " << barriers;
      }
    }
  }
  return t;
}

TEST(NvidiaOccupancyVsCudaOccupancyHeader, AgreesOnRandomConfigurations) {
  int total = 0, mismatches = 0;
  uint64_t seed = 20261122;
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_120"}) {
    Totals t = compare_arch(arch, seed++);
    std::cout << arch << ": " << t.compared << " configurations compared with cuda_occupancy.h, " << t.mismatches
              << " mismatches\n";
    EXPECT_GE(t.compared, kConfigsPerArch);
    EXPECT_EQ(t.mismatches, 0) << arch;
    total += t.compared;
    mismatches += t.mismatches;
  }
  RecordProperty("configurations", total);
  RecordProperty("mismatches", mismatches);
}

}  // namespace
}  // namespace rpl::hal
