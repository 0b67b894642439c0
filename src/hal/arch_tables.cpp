// Architecture tables. Sources (see ../shared/reference/ for the full citations):
//   [LLVM]  llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (IsaInfo: getMaxWavesPerEU, getTotalNumVGPRs,
//           getVGPRAllocGranule, getMaxWorkGroupsPerCU, getLocalMemorySize, getEUsPerCU), reference/rocm.md §4.2
//   [AMDU]  llvm/docs/AMDGPUUsage.rst, COMPUTE_PGM_RSRC2.LDS_SIZE: granule 128 dwords (512 B) on GFX7+
//   [RDOC]  ROCm docs gpu-arch-specs.rst (CU counts), mi300.md/mi250.md (clocks), reference/rocm.md §4.1, §4.4
//   [SYSI]  rocprofiler-compute test sysinfo.csv (MI100 120 CU at 1502 MHz), reference/rocm.md §4.1
//   [OCC]   CUDA 13.0 cuda_occupancy.h (granularities, blocks per SM, carveout steps), reference/cuda.md §6
//   [CPG]   CUDA Programming Guide, compute-capability table (threads, registers, shared memory per SM/block)
//   [NVDS]  NVIDIA product datasheets (SM counts, boost clocks), reference/cuda.md §4.3, §9
//   [CCCL]  NVIDIA CCCL cuda/__device/arch_traits.h (per-arch shared memory per SM and per block opt-in,
//           threads per SM, reserved shared memory), for the architectures the Programming Guide
//           table of this project's reference does not cover (sm_75, sm_100, sm_103, sm_120)
//   [L950]  LLVM AMDGPU.td: gfx950 is FeatureGFX90AInsts with FeatureAddressableLocalMemorySize163840
//           (160 KiB LDS); every other gfx950 rule is gfx942's
//   [L11]   LLVM AMDGPUBaseInfo.cpp for gfx11/gfx12: Feature1_5xVGPRs -> 1536 VGPRs (wave32) and
//           granule 24; 16 waves per SIMD; WGP mode by default; LDS 64 KiB per CU, 128 KiB per WGP
//   [L115]  LLVM AMDGPU.td: of gfx11, FeatureISAVersion11_0_0, 11_0_1 and 11_5_1 (gfx1100, gfx1101,
//           gfx1151) have Feature1_5xVGPRs, 11_0_2, 11_0_3, 11_5_0 and 11_5_2 (gfx1102, gfx1103,
//           gfx1150, gfx1152) do not; ROCm docs gpu-specs.rst agrees: a VGPR file of 768 KiB on the
//           first, 512 KiB on the others, and gives their CU counts (RX 7600 32, Radeon 780M 12,
//           890M 16, 8060S 40, 860M 8)
// gfx1100 to gfx1103 are checked against hipcc's own occupancy remarks (tests/amd_offline); gfx950,
// gfx1150 to gfx1152, gfx1200 and gfx1201 are newer than Debian's clang and rest on these documents
// alone.
#include <rpl/hal/arch.hpp>

#include <algorithm>
#include <array>
#include <cctype>

#include <rpl/core/error.hpp>

namespace rpl::hal {
namespace {

AmdArch gfx9_cdna(std::string_view name, ProductDefaults product) {
  AmdArch a;
  a.name = name;
  a.occupancy_unit = "CU";
  a.simds_per_unit = 4;            // [LLVM] getEUsPerCU = 4 on gfx9
  a.default_wave_size = 64;
  a.max_waves_per_simd = 8;        // [LLVM] getMaxWavesPerEU: FeatureGFX90AInsts -> 8
  a.vgprs_per_simd_wave64 = 512;   // [LLVM] getTotalNumVGPRs: GFX90AInsts -> 512 (arch + acc unified)
  a.vgpr_granule_wave64 = 8;       // [LLVM] getVGPRAllocGranule: GFX90AInsts -> 8
  a.unified_agpr_file = true;      // [LLVM] getTotalNumVGPRs(has90AInsts, NumAGPR, NumVGPR)
  a.sgprs_limit_waves = true;      // [LLVM] getOccupancyWithNumSGPRs: gfx8/9 table
  a.lds_bytes_per_unit = 65536;    // [LLVM] getLocalMemorySize; [RDOC] 64 KiB LDS per CU
  a.lds_granule_bytes = 512;       // [AMDU]
  a.max_lds_per_workgroup = 65536;
  a.max_workgroups_per_unit = 16;  // [LLVM] getMaxWorkGroupsPerCU: MaxBarriers 16
  a.max_sgprs = 112;               // [LLVM] gfx9: 102 addressable, 112 with VCC and the other extras
  a.product = product;
  return a;
}

// RDNA (gfx10.3 and later) in WGP mode, the compiler's default: two CUs, four SIMDs.
AmdArch rdna_wgp(std::string_view name, ProductDefaults product) {
  AmdArch a;
  a.name = name;
  a.occupancy_unit = "WGP";         // [LLVM] WGP mode is the default on gfx10+: EUs per CU = 4
  a.simds_per_unit = 4;
  a.default_wave_size = 32;
  a.supports_wave32 = true;
  a.max_waves_per_simd = 16;        // [LLVM] gfx10.3+ -> 16
  a.vgprs_per_simd_wave32 = 1024;   // [LLVM] gfx10+: wave32 1024, wave64 512
  a.vgprs_per_simd_wave64 = 512;
  a.vgpr_granule_wave32 = 16;       // [LLVM] gfx10.3: wave32 16, wave64 8
  a.vgpr_granule_wave64 = 8;
  a.sgprs_limit_waves = false;      // [LLVM] gfx10+: SGPRs never limit
  a.lds_bytes_per_unit = 131072;    // [LLVM] local memory doubled in WGP mode; [RDOC] 128 KiB
  a.lds_granule_bytes = 512;        // [AMDU]
  a.max_lds_per_workgroup = 65536;
  a.max_workgroups_per_unit = 32;   // [LLVM] MaxBarriers 32 on gfx10+ in WGP mode
  a.max_sgprs = 108;                // [LLVM] gfx10+: 106 addressable, 108 with VCC
  a.product = product;
  return a;
}

// RDNA3 and RDNA4 with the larger register file.
AmdArch rdna_wgp_1_5x_vgprs(std::string_view name, ProductDefaults product) {
  AmdArch a = rdna_wgp(name, product);
  a.vgprs_per_simd_wave32 = 1536;   // [L11] Feature1_5xVGPRs: 1536 (wave32), 768 (wave64)
  a.vgprs_per_simd_wave64 = 768;
  a.vgpr_granule_wave32 = 24;       // [L11] Feature1_5xVGPRs: granule 24 (wave32), 12 (wave64)
  a.vgpr_granule_wave64 = 12;
  return a;
}

const std::vector<AmdArch>& amd_table() {
  static const std::vector<AmdArch> table = [] {
    std::vector<AmdArch> t;
    AmdArch gfx908 = gfx9_cdna("gfx908", {"AMD Instinct MI100", 120, 1502});  // [SYSI]
    gfx908.max_waves_per_simd = 10;      // [LLVM] other gfx9 -> 10
    gfx908.vgprs_per_simd_wave64 = 256;  // [LLVM] pre-gfx10 -> 256
    gfx908.vgpr_granule_wave64 = 4;      // [LLVM] wave64, not GFX90AInsts -> 4
    gfx908.unified_agpr_file = false;
    gfx908.separate_agpr_file = true;    // [LLVM] getTotalNumVGPRs: max(VGPR, AGPR) without GFX90AInsts
    t.push_back(gfx908);
    t.push_back(gfx9_cdna("gfx90a", {"AMD Instinct MI250X (one GCD)", 110, 1700}));  // [RDOC] 220 CU / 2 GCD, 1.7 GHz
    t.push_back(gfx9_cdna("gfx940", {"AMD Instinct MI300 (gfx940)", 0, 0}));         // same ISA line as gfx942
    t.push_back(gfx9_cdna("gfx941", {"AMD Instinct MI300 (gfx941)", 0, 0}));
    t.push_back(gfx9_cdna("gfx942", {"AMD Instinct MI300X", 304, 2100}));            // [RDOC] 304 CU, 2.1 GHz
    AmdArch gfx950 = gfx9_cdna("gfx950", {"AMD Instinct MI355X", 256, 2400});        // [RDOC] 256 CU, 2.4 GHz
    gfx950.lds_bytes_per_unit = 163840;     // [L950] 160 KiB per CU
    gfx950.max_lds_per_workgroup = 163840;  // [L950] addressable by one workgroup
    t.push_back(gfx950);
    t.push_back(rdna_wgp("gfx1030", {"AMD Radeon RX 6900 XT", 80, 0}));  // [RDOC] 80 CU; no authoritative clock found
    t.push_back(rdna_wgp_1_5x_vgprs("gfx1100", {"AMD Radeon RX 7900 XTX", 96, 0}));  // [RDOC] 96 CU
    t.push_back(rdna_wgp_1_5x_vgprs("gfx1101", {"AMD Radeon RX 7800 XT", 60, 0}));   // [RDOC] 60 CU
    t.push_back(rdna_wgp("gfx1102", {"AMD Radeon RX 7600", 32, 0}));                 // [L115]
    t.push_back(rdna_wgp("gfx1103", {"AMD Radeon 780M", 12, 0}));                    // [L115] an APU's
    t.push_back(rdna_wgp("gfx1150", {"AMD Radeon 890M", 16, 0}));                    // [L115] RDNA 3.5 APUs
    t.push_back(rdna_wgp_1_5x_vgprs("gfx1151", {"AMD Radeon 8060S", 40, 0}));        // [L115] Strix Halo
    t.push_back(rdna_wgp("gfx1152", {"AMD Radeon 860M", 8, 0}));                     // [L115]
    t.push_back(rdna_wgp_1_5x_vgprs("gfx1200", {"AMD Radeon RX 9060 XT", 32, 0}));   // [RDOC] 32 CU
    t.push_back(rdna_wgp_1_5x_vgprs("gfx1201", {"AMD Radeon RX 9070 XT", 64, 0}));   // [RDOC] 64 CU
    return t;
  }();
  return table;
}

NvidiaArch nvidia(std::string_view name, int major, int minor) {
  NvidiaArch a;
  a.name = name;
  a.cc_major = major;
  a.cc_minor = minor;
  a.regs_per_sm = 65536;           // [CPG] 64K 32-bit registers per SM, cc 8.x and 9.0
  a.regs_per_block = 65536;        // [CPG]
  a.max_regs_per_thread = 256;     // [OCC] cudaOccRegAllocationMaxPerThread, cc 7-12
  a.reg_granule_per_warp = 256;    // [OCC] cudaOccRegAllocationGranularity
  a.sub_partitions = 4;            // [OCC] cudaOccSubPartitionsPerMultiprocessor
  a.smem_granule = 128;            // [OCC] cudaOccSMemAllocationGranularity, cc 8+
  a.smem_per_block = 49152;        // [CPG] 48 KiB without opt-in
  a.reserved_smem_per_block = 1024;  // [CPG] 1 KB per block reserved for system use
  return a;
}

const std::vector<NvidiaArch>& nvidia_table() {
  static const std::vector<NvidiaArch> table = [] {
    std::vector<NvidiaArch> t;
    NvidiaArch sm75 = nvidia("sm_75", 7, 5);
    sm75.max_threads_per_sm = 1024;            // [CCCL] [CPG]
    sm75.smem_per_sm = 64 * 1024;              // [CCCL] 64 KB
    sm75.smem_per_block_optin = 64 * 1024;     // [CCCL] nothing reserved on cc 7.x
    sm75.reserved_smem_per_block = 0;          // [CCCL]
    sm75.smem_granule = 256;                   // [OCC] cc 7: 256 B
    sm75.max_blocks_per_sm = 16;               // [OCC] Turing
    sm75.barriers_per_block_slot = 2;          // [OCC] (the barrier limit applies from cc 9 on)
    sm75.carveout_steps_kib = {32, 64};        // [OCC] Turing: 32 or 64 KB
    sm75.product = {"NVIDIA T4", 40, 1590};     // [NVDS]
    t.push_back(sm75);
    NvidiaArch sm80 = nvidia("sm_80", 8, 0);
    sm80.max_threads_per_sm = 2048;            // [CPG]
    sm80.smem_per_sm = 164 * 1024;             // [CPG] 164 KB
    sm80.smem_per_block_optin = 163 * 1024;    // [CPG] 163 KB
    sm80.max_blocks_per_sm = 32;               // [OCC]
    sm80.barriers_per_block_slot = 2;          // [OCC] cc 8.0
    sm80.carveout_steps_kib = {0, 8, 16, 32, 64, 100, 132, 164};  // [OCC]
    sm80.product = {"NVIDIA A100", 108, 1410};  // [NVDS]
    t.push_back(sm80);
    NvidiaArch sm86 = nvidia("sm_86", 8, 6);
    sm86.max_threads_per_sm = 1536;            // [CPG]
    sm86.smem_per_sm = 100 * 1024;             // [CPG]
    sm86.smem_per_block_optin = 99 * 1024;     // [CPG]
    sm86.max_blocks_per_sm = 16;               // [OCC]
    sm86.barriers_per_block_slot = 1;          // [OCC] cc 8.x other than 8.0
    sm86.carveout_steps_kib = {0, 8, 16, 32, 64, 100};  // [OCC]
    sm86.product = {"NVIDIA GeForce RTX 3090", 82, 1695};  // [NVDS]
    t.push_back(sm86);
    NvidiaArch sm87 = nvidia("sm_87", 8, 7);
    sm87.max_threads_per_sm = 1536;            // [CPG] 8.7: 48 warps
    sm87.smem_per_sm = 164 * 1024;             // [CPG] 164 KB, as 8.0
    sm87.smem_per_block_optin = 163 * 1024;    // [CPG]
    sm87.max_blocks_per_sm = 16;               // [OCC] 8.6/8.7
    sm87.barriers_per_block_slot = 1;          // [OCC] cc 8.x other than 8.0
    sm87.carveout_steps_kib = {0, 8, 16, 32, 64, 100, 132, 164};  // [OCC] 8.0 and 8.7
    sm87.product = {"NVIDIA Jetson AGX Orin", 16, 0};  // [NVDS] 2048 CUDA cores = 16 SMs
    t.push_back(sm87);
    NvidiaArch sm89 = nvidia("sm_89", 8, 9);
    sm89.max_threads_per_sm = 1536;            // [CPG]
    sm89.smem_per_sm = 100 * 1024;             // [CPG]
    sm89.smem_per_block_optin = 99 * 1024;     // [CPG]
    sm89.max_blocks_per_sm = 24;               // [OCC]
    sm89.barriers_per_block_slot = 1;          // [OCC]
    sm89.carveout_steps_kib = {0, 8, 16, 32, 64, 100};  // [OCC]
    sm89.product = {"NVIDIA L40S", 142, 2520};  // [NVDS]
    t.push_back(sm89);
    NvidiaArch sm90 = nvidia("sm_90", 9, 0);
    sm90.max_threads_per_sm = 2048;            // [CPG]
    sm90.smem_per_sm = 228 * 1024;             // [CPG] 228 KB
    sm90.smem_per_block_optin = 227 * 1024;    // [CPG] 227 KB
    sm90.max_blocks_per_sm = 32;               // [OCC]
    sm90.barriers_per_block_slot = 2;          // [OCC] cc 9.0
    sm90.carveout_steps_kib = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};  // [OCC]
    sm90.product = {"NVIDIA H100 SXM", 132, 1980};  // [NVDS]; the H200 has the same 132 SMs (cuda.md §9)
    t.push_back(sm90);
    NvidiaArch sm100 = nvidia("sm_100", 10, 0);
    sm100.max_threads_per_sm = 2048;           // [CCCL]
    sm100.smem_per_sm = 228 * 1024;            // [CCCL] 228 KB
    sm100.smem_per_block_optin = 227 * 1024;   // [CCCL] per SM less 1 KB reserved
    sm100.max_blocks_per_sm = 32;              // [OCC] 10.0
    sm100.barriers_per_block_slot = 2;         // [OCC] 10.0
    sm100.carveout_steps_kib = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};  // [OCC] 10.0/10.1/10.3
    sm100.product = {"NVIDIA B200", 148, 0};    // [NVDS] 148 SMs
    t.push_back(sm100);
    NvidiaArch sm103 = sm100;                  // [CCCL] sm_103 traits are sm_100's
    sm103.name = "sm_103";
    sm103.cc_minor = 3;
    sm103.product = {"NVIDIA B300", 0, 0};      // no authoritative SM count or clock found
    t.push_back(sm103);
    NvidiaArch sm120 = nvidia("sm_120", 12, 0);
    sm120.max_threads_per_sm = 1536;           // [CCCL]
    sm120.smem_per_sm = 100 * 1024;            // [CCCL] 100 KB
    sm120.smem_per_block_optin = 99 * 1024;    // [CCCL]
    sm120.max_blocks_per_sm = 24;              // [OCC] 12.x
    sm120.barriers_per_block_slot = 1;         // [OCC] 12.x
    sm120.carveout_steps_kib = {0, 8, 16, 32, 64, 100};  // [OCC] 12.0/12.1
    sm120.product = {"NVIDIA GeForce RTX 5090", 170, 2407};  // [NVDS]
    t.push_back(sm120);
    return t;
  }();
  return table;
}

}  // namespace

std::string normalize_arch_name(std::string_view name) {
  std::string s(name.substr(0, name.find(':')));
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "amdgcn-amd-amdhsa--gfx90a" (a target triple with processor) -> "gfx90a"
  if (auto dash = s.rfind('-'); dash != std::string::npos && s.find("gfx", dash) == dash + 1) s = s.substr(dash + 1);
  // "sm_90a" / "sm_100f": arch-specific feature suffixes do not change resource limits
  if (s.rfind("sm_", 0) == 0 && !s.empty() && std::isalpha(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

const AmdArch* find_amd_arch(std::string_view name) {
  const std::string n = normalize_arch_name(name);
  for (const auto& a : amd_table()) {
    if (a.name == n) return &a;
  }
  return nullptr;
}

const NvidiaArch* find_nvidia_arch(std::string_view name) {
  const std::string n = normalize_arch_name(name);
  for (const auto& a : nvidia_table()) {
    if (a.name == n) return &a;
  }
  return nullptr;
}

std::optional<Vendor> vendor_of(std::string_view name) {
  if (find_amd_arch(name)) return Vendor::amd;
  if (find_nvidia_arch(name)) return Vendor::nvidia;
  return std::nullopt;
}

std::string known_arch_names() {
  std::vector<std::string> names;
  for (const auto& a : amd_table()) names.emplace_back(a.name);
  for (const auto& a : nvidia_table()) names.emplace_back(a.name);
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
  return joined;
}

void fail_unknown_arch(std::string_view name) {
  fail(Errc::bad_input, "unknown architecture '{}' (known: {})", name, known_arch_names());
}

}  // namespace rpl::hal
