#pragma once
// Per-architecture hardware limits. Every value cites its source in src/hal/arch_tables.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::hal {

enum class Vendor { amd, nvidia };

/// A typical product of an architecture: defaults that a trace's own agent properties override.
struct ProductDefaults {
  std::string_view name;
  int compute_units = 0;       // CUs (AMD) or SMs (NVIDIA)
  double max_clock_mhz = 0;    // 0 when no authoritative figure is known
};

struct AmdArch {
  std::string_view name;                 // "gfx942"
  std::string_view occupancy_unit;       // "CU", or "WGP" on gfx10.3 in WGP mode (the compiler's default)
  int simds_per_unit = 4;                // SIMDs sharing one occupancy unit
  int default_wave_size = 64;
  bool supports_wave32 = false;
  int max_waves_per_simd = 0;
  int vgprs_per_simd_wave64 = 0;         // VGPRs per lane available to one SIMD's waves
  int vgprs_per_simd_wave32 = 0;
  int vgpr_granule_wave64 = 0;
  int vgpr_granule_wave32 = 0;
  bool unified_agpr_file = false;        // gfx90a+: arch VGPRs and AGPRs share one file
  bool separate_agpr_file = false;       // gfx908: AGPRs in their own file of the same size
  bool sgprs_limit_waves = false;        // gfx9 only
  int lds_bytes_per_unit = 0;
  int lds_granule_bytes = 0;
  int max_lds_per_workgroup = 0;
  int max_workgroups_per_unit = 0;       // barrier slots; workgroups of one wave use none
  int max_arch_vgprs = 256;              // addressable arch VGPRs (and AGPRs, where there are) per lane
  int max_sgprs = 0;                     // SGPRs one wave can be given, VCC and the other extras included
  int max_workgroup_size = 1024;
  ProductDefaults product;
};

struct NvidiaArch {
  std::string_view name;                 // "sm_90"
  int cc_major = 0;
  int cc_minor = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 1024;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_regs_per_thread = 0;           // occupancy model's limit (cuda_occupancy.h)
  int max_regs_per_thread_isa = 255;     // what ptxas can give a thread
  int reg_granule_per_warp = 256;
  int warp_size = 32;
  int sub_partitions = 4;
  int smem_per_sm = 0;                   // bytes, the largest carveout
  int smem_per_block = 49152;            // without opt-in
  int smem_per_block_optin = 0;
  int reserved_smem_per_block = 1024;    // the driver's share of each block
  int smem_granule = 128;
  int max_blocks_per_sm = 0;
  int barriers_per_block_slot = 2;       // Hopper: barrier pool = this x max_blocks_per_sm
  std::vector<int> carveout_steps_kib;   // supported shared-memory capacities per SM
  ProductDefaults product;
};

/// "gfx90a:sramecc+:xnack-" -> "gfx90a"; "sm_90a" -> "sm_90"; lower-cased.
std::string normalize_arch_name(std::string_view name);

const AmdArch* find_amd_arch(std::string_view name);
const NvidiaArch* find_nvidia_arch(std::string_view name);
std::optional<Vendor> vendor_of(std::string_view name);

/// Every architecture name the tables know, sorted and comma-separated, for help and errors.
std::string known_arch_names();

/// Error(bad_input): "unknown architecture 'NAME' (known: ...)".
[[noreturn]] void fail_unknown_arch(std::string_view name);

}  // namespace rpl::hal
