// NVIDIA occupancy after the rules of the toolkit's cuda_occupancy.h (reference/cuda.md §6).
// Written from those rules; tests compare it with NVIDIA's header on random configurations.
#include <algorithm>

#include <rpl/core/error.hpp>
#include <rpl/hal/occupancy.hpp>

#include "occupancy_common.hpp"

namespace rpl::hal {
namespace {

int64_t round_up(int64_t value, int64_t granule) { return (value + granule - 1) / granule * granule; }

// The smallest supported shared-memory capacity per SM that holds bytes (Volta and later).
int64_t align_to_carveout_step(const NvidiaArch& arch, int64_t bytes) {
  for (int kib : arch.carveout_steps_kib) {
    if (bytes <= int64_t{kib} * 1024) return int64_t{kib} * 1024;
  }
  fail(Errc::bad_input, "{} bytes of shared memory per SM exceed the largest carveout of {}", bytes, arch.name);
}

// The shared memory per SM the user's carveout preference asks for.
int64_t preferred_smem_per_sm(const NvidiaArch& arch, const NvidiaKernelResources& k) {
  int carveout = k.carveout_percent;
  if (carveout < -1 || carveout > 100) fail(Errc::bad_input, "carveout {} % is outside 0..100", carveout);
  if (carveout == -1) {
    switch (k.cache_preference) {
      case CachePreference::shared: carveout = 100; break;
      case CachePreference::l1: carveout = 0; break;
      case CachePreference::equal: carveout = 50; break;
      case CachePreference::none: break;
    }
  }
  const int64_t bytes = carveout == -1 ? arch.smem_per_sm : int64_t{carveout} * arch.smem_per_sm / 100;
  return align_to_carveout_step(arch, bytes);
}

std::optional<int64_t> register_limit(const NvidiaArch& arch, const NvidiaKernelResources& k, int warps_per_block) {
  const int64_t per_warp = round_up(int64_t{k.regs_per_thread} * arch.warp_size, arch.reg_granule_per_warp);
  const int64_t per_block = per_warp * warps_per_block;
  // The hardware reserves registers for whole groups of sub-partitions' warps.
  const int64_t assumed_per_block = per_warp * round_up(warps_per_block, arch.sub_partitions);
  if (arch.regs_per_block < assumed_per_block || arch.regs_per_block < per_block ||
      k.regs_per_thread > arch.max_regs_per_thread) {
    return 0;
  }
  if (per_warp == 0) return std::nullopt;
  // Warps are packed per sub-partition, each holding a quarter of the register file.
  const int64_t warps_per_sub_partition = (arch.regs_per_sm / arch.sub_partitions) / per_warp;
  return warps_per_sub_partition * arch.sub_partitions / warps_per_block;
}

std::optional<int64_t> shared_memory_limit(const NvidiaArch& arch, const NvidiaKernelResources& k) {
  const int64_t preferred = preferred_smem_per_sm(arch, k);
  const int64_t static_bytes = k.static_smem + arch.reserved_smem_per_block;
  const int64_t allocated = round_up(static_bytes + k.dynamic_smem, arch.smem_granule);
  const int64_t max_dynamic = k.max_dynamic_smem.value_or(
      std::max<int64_t>({0, arch.smem_per_block - k.static_smem, k.dynamic_smem}));
  const int64_t max_usage = static_bytes + max_dynamic;
  int64_t per_block_limit = (k.shmem_limit_optin && max_usage > arch.smem_per_block) ? arch.smem_per_block_optin
                                                                                      : arch.smem_per_block;
  per_block_limit += arch.reserved_smem_per_block;
  const bool dynamic_exceeded = k.shmem_limit_optin && k.dynamic_smem > max_dynamic;
  if (dynamic_exceeded || allocated > per_block_limit) return 0;
  if (allocated == 0) return std::nullopt;  // no shared memory (possible where none is reserved, cc 7.x)
  // The driver picks the user's carveout if one block fits in it, else the smallest step that does.
  const int64_t capacity = preferred >= allocated ? preferred : align_to_carveout_step(arch, allocated);
  return capacity / allocated;
}

}  // namespace

void check_allocatable(const NvidiaArch& arch, const NvidiaKernelResources& k) {
  if (k.regs_per_thread > arch.max_regs_per_thread_isa) {
    fail(Errc::bad_input, "{} registers per thread: {} can give a thread at most {}", k.regs_per_thread, arch.name,
         arch.max_regs_per_thread_isa);
  }
  if (k.static_smem + k.dynamic_smem > arch.smem_per_block_optin) {
    fail(Errc::bad_input, "{} bytes of shared memory per block: {} can give a block at most {}", k.static_smem + k.dynamic_smem,
         arch.name, arch.smem_per_block_optin);
  }
}

OccupancyResult nvidia_occupancy(const NvidiaArch& arch, const NvidiaKernelResources& k, int block) {
  if (block < 1 || block > arch.max_threads_per_block) {
    fail(Errc::bad_input, "block size {} is outside 1..{} on {}", block, arch.max_threads_per_block, arch.name);
  }
  if (k.regs_per_thread < 0 || k.static_smem < 0 || k.dynamic_smem < 0 || k.barriers < 0) {
    fail(Errc::bad_input, "register, shared-memory and barrier counts must not be negative");
  }
  const int warps_per_block = (block + arch.warp_size - 1) / arch.warp_size;
  const int max_warps = arch.max_threads_per_sm / arch.warp_size;

  std::optional<int64_t> barrier_limit;
  if (arch.cc_major >= 9 && k.barriers > 0) {
    barrier_limit = int64_t{arch.max_blocks_per_sm} * arch.barriers_per_block_slot / k.barriers;
  }
  std::vector<OccupancyLimit> limits = {
      {"warps", max_warps / warps_per_block},
      {"blocks", arch.max_blocks_per_sm},
      {"registers", register_limit(arch, k, warps_per_block)},
      {"shared_memory", shared_memory_limit(arch, k)},
      {"barriers", barrier_limit},
  };

  OccupancyResult r;
  r.arch = std::string(arch.name);
  r.unit = "SM";
  r.block = block;
  r.wave_size = arch.warp_size;
  r.waves_per_workgroup = warps_per_block;
  r.max_waves_per_cu = max_warps;
  detail::apply_limits(r, std::move(limits));
  r.active_waves_per_cu = r.active_workgroups_per_cu * warps_per_block;
  r.theoretical = static_cast<double>(r.active_waves_per_cu) / max_warps;
  return r;
}

}  // namespace rpl::hal
