#pragma once
// Static inspection of AMD GPU code objects without a GPU: HSACO ELF files (AMDGPU metadata
// notes, msgpack), clang offload bundles, and host binaries with an embedded .hip_fatbin.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::codeobj {

/// One argument of a kernel's argument buffer (.args): the kernel's own parameters in order, then
/// the runtime's hidden ones (value kinds "hidden_*").
struct AmdKernelArgument {
  int64_t offset = 0;             // .offset in the buffer
  int64_t size = 0;               // .size
  std::string value_kind;         // .value_kind: "global_buffer", "by_value", "hidden_global_offset_x", ...
};

/// One kernel as its code object's metadata describes it (AMDGPUUsage "Code Object V3+ Metadata").
struct AmdKernelInfo {
  std::string name;               // .name (mangled)
  std::string symbol;             // .symbol, the kernel descriptor ("<name>.kd")
  int64_t vgpr_count = 0;         // .vgpr_count: on gfx90a+ with AGPRs, alignTo(arch, 4) + AGPRs
  int64_t agpr_count = 0;         // .agpr_count
  int64_t sgpr_count = 0;         // .sgpr_count, VCC/flat scratch/XNACK included
  int64_t vgpr_spill_count = 0;
  int64_t sgpr_spill_count = 0;
  int64_t group_segment_fixed_size = 0;    // static LDS per workgroup
  int64_t private_segment_fixed_size = 0;  // scratch per work-item
  int64_t kernarg_segment_size = 0;
  int64_t wavefront_size = 64;
  int64_t max_flat_workgroup_size = 1024;
  bool uses_dynamic_stack = false;
  std::vector<AmdKernelArgument> arguments;
};

struct AmdCodeObject {
  std::string target;             // "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" or "gfx90a" (from e_flags)
  std::string arch;               // "gfx90a"
  std::string origin;             // where in the file it was found
  std::vector<AmdKernelInfo> kernels;
};

/// Every AMD code object in a file's bytes. Error(bad_input) naming origin when it holds none or is
/// malformed.
std::vector<AmdCodeObject> read_amd_code_objects(std::string_view content, const std::string& origin);
/// The same, reading the file.
std::vector<AmdCodeObject> read_amd_code_objects(const std::filesystem::path& file);

/// Calls f with each AMD code object image in a file's bytes (a bare HSACO, a clang offload
/// bundle, or an executable's .hip_fatbin bundles) and where it was found. Error(bad_input) as above.
void for_each_amd_image(std::string_view data, const std::string& name,
                        const std::function<void(std::string_view image, const std::string& where)>& f);

/// The code objects of one HSACO ELF image in memory.
AmdCodeObject parse_hsaco(std::string_view image, const std::string& origin);

/// The device images of a clang offload bundle (host entries skipped): (entry id, bytes viewing
/// into `bundle`, which must outlive them).
std::vector<std::pair<std::string, std::string_view>> parse_offload_bundle(std::string_view bundle, const std::string& origin);

}  // namespace rpl::codeobj
