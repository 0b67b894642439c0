// AMD occupancy after LLVM's AMDGPU rules (AMDGPUBaseInfo.cpp, GCNSubtarget; reference/rocm.md §4.2-4.3).
#include <algorithm>
#include <limits>

#include <rpl/core/error.hpp>
#include <rpl/hal/occupancy.hpp>

#include "occupancy_common.hpp"

namespace rpl::hal {
namespace {

int align_to(int value, int granule) { return (value + granule - 1) / granule * granule; }

// Registers per lane that count against the VGPR file.
int vgprs_in_file(const AmdArch& arch, const AmdKernelResources& k) {
  if (arch.unified_agpr_file && k.accum_vgprs > 0) return align_to(k.arch_vgprs, 4) + k.accum_vgprs;
  if (arch.separate_agpr_file) return std::max(k.arch_vgprs, k.accum_vgprs);
  return k.arch_vgprs;
}

int vgpr_waves_per_simd(const AmdArch& arch, const AmdKernelResources& k, int wave) {
  const int total = wave == 32 ? arch.vgprs_per_simd_wave32 : arch.vgprs_per_simd_wave64;
  const int granule = wave == 32 ? arch.vgpr_granule_wave32 : arch.vgpr_granule_wave64;
  const int regs = vgprs_in_file(arch, k);
  if (regs < granule) return arch.max_waves_per_simd;
  return std::min(std::max(total / align_to(regs, granule), 1), arch.max_waves_per_simd);
}

// GCNSubtarget::getOccupancyWithNumSGPRs for gfx8/gfx9.
int sgpr_waves_per_simd(const AmdArch& arch, const AmdKernelResources& k) {
  if (!arch.sgprs_limit_waves) return arch.max_waves_per_simd;
  int waves = k.sgprs <= 80 ? 10 : k.sgprs <= 88 ? 9 : k.sgprs <= 100 ? 8 : 7;
  return std::min(waves, arch.max_waves_per_simd);
}

int wave_size_of(const AmdArch& arch, const AmdKernelResources& k) {
  const int wave = k.wave_size == 0 ? arch.default_wave_size : k.wave_size;
  if (wave != 64 && !(wave == 32 && arch.supports_wave32)) {
    fail(Errc::bad_input, "wave size {} is not supported on {} (use {})", wave, arch.name,
         arch.supports_wave32 ? "32 or 64" : "64");
  }
  return wave;
}

}  // namespace

void check_allocatable(const AmdArch& arch, const AmdKernelResources& k) {
  const bool has_agprs = arch.unified_agpr_file || arch.separate_agpr_file;
  if (k.arch_vgprs > arch.max_arch_vgprs) {
    fail(Errc::bad_input, "{} VGPRs per work-item: {} can give a wave at most {}", k.arch_vgprs, arch.name, arch.max_arch_vgprs);
  }
  if (k.accum_vgprs > (has_agprs ? arch.max_arch_vgprs : 0)) {
    fail(Errc::bad_input, "{} AGPRs per work-item: {} {}", k.accum_vgprs, arch.name,
         has_agprs ? fmt::format("can give a wave at most {}", arch.max_arch_vgprs) : std::string("has no AGPRs"));
  }
  if (k.sgprs > arch.max_sgprs) {
    fail(Errc::bad_input, "{} SGPRs per wave: {} can give a wave at most {}", k.sgprs, arch.name, arch.max_sgprs);
  }
  if (k.lds_bytes > arch.max_lds_per_workgroup) {
    fail(Errc::bad_input, "{} bytes of LDS per workgroup: {} can give a workgroup at most {}", k.lds_bytes, arch.name,
         arch.max_lds_per_workgroup);
  }
}


int amd_register_waves_per_simd(const AmdArch& arch, const AmdKernelResources& kernel) {
  const int wave = wave_size_of(arch, kernel);
  return std::min(vgpr_waves_per_simd(arch, kernel, wave), sgpr_waves_per_simd(arch, kernel));
}

OccupancyResult amd_occupancy(const AmdArch& arch, const AmdKernelResources& k, int block) {
  if (block < 1 || block > arch.max_workgroup_size) {
    fail(Errc::bad_input, "block size {} is outside 1..{} on {}", block, arch.max_workgroup_size, arch.name);
  }
  if (k.arch_vgprs < 0 || k.accum_vgprs < 0 || k.sgprs < 0 || k.lds_bytes < 0) {
    fail(Errc::bad_input, "register and LDS counts must not be negative");
  }
  const int wave = wave_size_of(arch, k);
  const int waves_per_wg = (block + wave - 1) / wave;
  const int simds = arch.simds_per_unit;
  auto workgroups_for = [&](int waves_per_simd) -> int64_t { return simds * waves_per_simd / waves_per_wg; };

  std::optional<int64_t> lds_limit;
  if (k.lds_bytes > 0) {
    const int64_t allocated = (k.lds_bytes + arch.lds_granule_bytes - 1) / arch.lds_granule_bytes * arch.lds_granule_bytes;
    lds_limit = allocated > arch.max_lds_per_workgroup ? 0 : arch.lds_bytes_per_unit / allocated;
  }
  std::optional<int64_t> sgpr_limit;
  if (arch.sgprs_limit_waves) sgpr_limit = workgroups_for(sgpr_waves_per_simd(arch, k));
  // getMaxWorkGroupsPerCU: a workgroup of one wave uses no barrier, so only wave slots bound it.
  const int64_t slot_limit =
      waves_per_wg == 1 ? int64_t{simds} * arch.max_waves_per_simd : int64_t{arch.max_workgroups_per_unit};

  // Order matters only on ties: hardware caps are named first, since no kernel change lifts them.
  std::vector<OccupancyLimit> limits = {
      {"waves", workgroups_for(arch.max_waves_per_simd)},
      {"workgroups", slot_limit},
      {"vgpr", workgroups_for(vgpr_waves_per_simd(arch, k, wave))},
      {"sgpr", sgpr_limit},
      {"lds", lds_limit},
  };

  OccupancyResult r;
  r.arch = std::string(arch.name);
  r.unit = std::string(arch.occupancy_unit);
  r.block = block;
  r.wave_size = wave;
  r.waves_per_workgroup = waves_per_wg;
  r.max_waves_per_cu = simds * arch.max_waves_per_simd;
  detail::apply_limits(r, std::move(limits));
  r.active_waves_per_cu = r.active_workgroups_per_cu * waves_per_wg;
  r.theoretical = static_cast<double>(r.active_waves_per_cu) / r.max_waves_per_cu;
  r.waves_per_simd = static_cast<double>(r.active_waves_per_cu) / simds;
  return r;
}

}  // namespace rpl::hal
