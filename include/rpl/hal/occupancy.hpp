#pragma once
// Exact theoretical occupancy: pure functions of the architecture limits and the kernel's resources.
// AMD follows LLVM's AMDGPU rules (reference/rocm.md §4.2); NVIDIA follows cuda_occupancy.h
// (reference/cuda.md §6). Limits are counted in workgroups (blocks) per CU (SM, or WGP on gfx10.3).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rpl/hal/arch.hpp>

namespace rpl::hal {

struct OccupancyLimit {
  std::string name;                   // vgpr, sgpr, lds, workgroups, waves | registers, shared_memory, blocks, barriers, warps
  std::optional<int64_t> workgroups;  // workgroups per unit this resource allows; nullopt: it sets no limit
};

struct OccupancyResult {
  std::string arch;
  std::string unit;                  // "CU", "WGP", "SM"
  int block = 0;                     // work-items (threads) per workgroup
  int wave_size = 0;
  int waves_per_workgroup = 0;
  int active_workgroups_per_cu = 0;
  int active_waves_per_cu = 0;
  int max_waves_per_cu = 0;
  double theoretical = 0;            // active / max waves, 0..1
  std::optional<double> waves_per_simd;  // AMD only
  std::string limiter;               // the limit that binds (hardware caps first on ties)
  std::vector<std::string> limiters; // every limit equal to the binding one
  std::vector<OccupancyLimit> limits;
};

struct AmdKernelResources {
  int arch_vgprs = 0;     // per work-item
  int accum_vgprs = 0;    // AGPRs per work-item (gfx908/gfx90a/gfx94x)
  int sgprs = 0;          // per wave, including VCC/flat-scratch/XNACK extras
  int64_t lds_bytes = 0;  // per workgroup, static + dynamic
  int wave_size = 0;      // 0: the architecture's default
};

/// Error(bad_input) for a block outside 1..max_workgroup_size or a wave size the arch lacks.
OccupancyResult amd_occupancy(const AmdArch& arch, const AmdKernelResources& kernel, int block);

/// Error(bad_input), saying the limit, for registers or LDS beyond what the architecture can give
/// one wave or workgroup at all (the calculators themselves answer 0 or cap, as the vendors' do).
void check_allocatable(const AmdArch& arch, const AmdKernelResources& kernel);

/// Waves per SIMD allowed by registers and the hardware cap alone (LLVM's "Occupancy [waves/SIMD]").
int amd_register_waves_per_simd(const AmdArch& arch, const AmdKernelResources& kernel);

enum class CachePreference { none, shared, l1, equal };

struct NvidiaKernelResources {
  int regs_per_thread = 0;
  int64_t static_smem = 0;
  int64_t dynamic_smem = 0;
  /// The kernel's cudaFuncAttributeMaxDynamicSharedMemorySize; nullopt: the default (48 KiB less
  /// static), raised to dynamic_smem when a launch used more (it could only run with the opt-in).
  std::optional<int64_t> max_dynamic_smem;
  bool shmem_limit_optin = true;   // as cudaFuncGetAttributes-derived attributes (FUNC_SHMEM_LIMIT_OPTIN)
  int carveout_percent = -1;       // -1: default (no preference)
  CachePreference cache_preference = CachePreference::none;
  int barriers = 1;                // named barriers per block (1 for __syncthreads)
};

/// Error(bad_input), saying the limit, for registers or shared memory beyond what one thread or
/// block can be given at all (255 registers, the opt-in shared memory per block).
void check_allocatable(const NvidiaArch& arch, const NvidiaKernelResources& kernel);

/// Error(bad_input) for a block outside 1..max_threads_per_block or an out-of-range carveout.
OccupancyResult nvidia_occupancy(const NvidiaArch& arch, const NvidiaKernelResources& kernel, int block);

}  // namespace rpl::hal
