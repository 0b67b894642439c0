#include <rpl/analysis/inspect.hpp>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/codeobj/amd_code_object.hpp>
#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/demangle.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/hal/arch.hpp>

namespace rpl::analysis {
namespace {

InspectedKernel inspect_amd_kernel(const codeobj::AmdKernelInfo& k, const std::string& arch_name, int block,
                                   std::vector<std::string>& warnings) {
  InspectedKernel out;
  out.mangled_name = k.name;
  out.name = demangle(k.name);
  out.arch = arch_name;
  out.wave_size = k.wavefront_size;
  out.max_flat_workgroup_size = k.max_flat_workgroup_size;
  out.vgpr_spills = k.vgpr_spill_count;
  out.sgpr_spills = k.sgpr_spill_count;
  const auto* arch = hal::find_amd_arch(arch_name);
  // On gfx90a+ the metadata's .vgpr_count is the unified total alignTo(arch, 4) + AGPRs.
  const bool unified = arch && arch->unified_agpr_file && k.agpr_count > 0;
  out.resources.vgpr_per_thread = unified ? k.vgpr_count - k.agpr_count : k.vgpr_count;
  out.resources.agpr_per_thread = k.agpr_count;
  out.resources.sgpr_per_wave = k.sgpr_count;
  out.resources.lds_bytes = k.group_segment_fixed_size;
  out.resources.static_lds_bytes = k.group_segment_fixed_size;
  out.resources.scratch_bytes = k.private_segment_fixed_size;
  if (!arch) {
    warnings.push_back(fmt::format("no occupancy rules for {}; occupancy of {} is not computed", arch_name, out.name));
    return out;
  }
  if (block > k.max_flat_workgroup_size) {
    warnings.push_back(fmt::format("{} ({}) cannot launch with block {}: its maximum workgroup size is {}", out.name,
                                   arch_name, block, k.max_flat_workgroup_size));
    return out;
  }
  hal::AmdKernelResources r;
  r.arch_vgprs = static_cast<int>(out.resources.vgpr_per_thread);
  r.accum_vgprs = static_cast<int>(k.agpr_count);
  r.sgprs = static_cast<int>(k.sgpr_count);
  r.lds_bytes = k.group_segment_fixed_size;
  r.wave_size = static_cast<int>(k.wavefront_size);
  out.occupancy = hal::amd_occupancy(*arch, r, block);
  return out;
}

InspectedKernel inspect_cuda_kernel(const codeobj::CudaKernelInfo& k, int block, std::vector<std::string>& warnings) {
  InspectedKernel out;
  out.mangled_name = k.name;
  out.name = demangle(k.name);
  out.arch = k.arch;
  out.wave_size = 32;
  out.max_flat_workgroup_size = 1024;
  out.resources.vgpr_per_thread = k.registers;
  out.resources.lds_bytes = k.shared_bytes;
  out.resources.static_lds_bytes = k.shared_bytes;
  // Local memory per thread as the runtime counts it (cudaFuncAttributes::localSizeBytes): the
  // stack, spills and local arrays included, as the H100 check showed.
  out.resources.scratch_bytes = k.local_bytes + k.stack_bytes;
  out.constant_bytes = k.constant_bytes;
  const auto* arch = hal::find_nvidia_arch(k.arch);
  if (!arch) {
    warnings.push_back(fmt::format("no occupancy rules for {}; occupancy of {} is not computed", k.arch, out.name));
    return out;
  }
  hal::NvidiaKernelResources r;
  r.regs_per_thread = static_cast<int>(k.registers);
  r.static_smem = k.shared_bytes;
  out.occupancy = hal::nvidia_occupancy(*arch, r, block);
  return out;
}

}  // namespace

InspectReport inspect_binary(const std::filesystem::path& file, const InspectOptions& options) {
  // --arch sm_90 takes sm_90 and its sm_90a/sm_90f variants; --arch sm_90a that variant alone.
  std::string wanted;
  bool exact_arch = false;
  if (options.arch) {
    if (!hal::vendor_of(*options.arch)) hal::fail_unknown_arch(*options.arch);
    wanted = hal::normalize_arch_name(*options.arch);
    std::string given = options.arch->substr(0, options.arch->find(':'));
    std::transform(given.begin(), given.end(), given.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (given != wanted && given.rfind("sm_", 0) == 0) {
      wanted = given;
      exact_arch = true;
    }
  }
  auto arch_wanted = [&](const std::string& arch) {
    return wanted.empty() || (exact_arch ? arch == wanted : hal::normalize_arch_name(arch) == wanted);
  };
  std::optional<std::regex> kernel_re;
  if (options.kernel_regex) kernel_re = compile_kernel_regex(*options.kernel_regex);
  auto kernel_wanted = [&](const std::string& mangled) {
    return !kernel_re || std::regex_search(mangled, *kernel_re) || std::regex_search(demangle(mangled), *kernel_re);
  };
  const int block = options.block;
  if (block < 1 || block > 1024) fail(Errc::bad_input, "--block {} is outside 1..1024", block);

  InspectReport report;
  report.file = file.string();
  report.block = block;
  std::set<std::string> seen_arches;
  const MappedFile mapped(file);  // a host library can be hundreds of MB: mapped, never copied
  const std::string_view content = mapped.bytes();
  if (codeobj::is_cuda_binary(content)) {
    codeobj::CudaKernelFilter filter;
    filter.arch = [&](const std::string& arch) { return arch_wanted(arch); };
    if (kernel_re) filter.kernel = kernel_wanted;
    filter.done_with = [&](std::string_view bytes) { mapped.release(bytes); };
    for (const auto& k : codeobj::read_cuda_kernels(content, report.file, filter)) {
      report.kernels.push_back(inspect_cuda_kernel(k, block, report.warnings));
    }
    if (report.kernels.empty()) {
      for (const auto& arch : codeobj::cuda_arches(content, report.file)) seen_arches.insert(arch);
    }
  } else {
    for (const auto& co : codeobj::read_amd_code_objects(content, report.file)) {
      seen_arches.insert(co.arch);
      if (!arch_wanted(co.arch)) continue;
      for (const auto& k : co.kernels) {
        if (kernel_wanted(k.name)) report.kernels.push_back(inspect_amd_kernel(k, co.arch, block, report.warnings));
      }
    }
  }
  if (report.kernels.empty() && (!wanted.empty() || kernel_re)) {
    std::string have;
    for (const auto& a : seen_arches) have += (have.empty() ? "" : ", ") + a;
    if (!wanted.empty() && std::none_of(seen_arches.begin(), seen_arches.end(), arch_wanted)) {
      fail(Errc::bad_input, "{}: no code for {} (it has code for: {})", file.string(), wanted, have);
    }
    if (!kernel_re) fail(Errc::bad_input, "{}: no kernels in its code for {}", file.string(), wanted);
    fail(Errc::bad_input, "{}: --kernel '{}' matches none of its kernels{}", file.string(), *options.kernel_regex,
         wanted.empty() ? "" : " for " + wanted);
  }
  std::stable_sort(report.kernels.begin(), report.kernels.end(), [](const auto& a, const auto& b) {
    return std::tie(a.arch, a.mangled_name, a.resources.vgpr_per_thread, a.resources.agpr_per_thread,
                    a.resources.sgpr_per_wave, a.resources.lds_bytes, a.resources.scratch_bytes, a.constant_bytes) <
           std::tie(b.arch, b.mangled_name, b.resources.vgpr_per_thread, b.resources.agpr_per_thread,
                    b.resources.sgpr_per_wave, b.resources.lds_bytes, b.resources.scratch_bytes, b.constant_bytes);
  });
  // A fat binary holds the same kernel once per translation unit that instantiated it: one is
  // reported. Copies compiled differently (cuDNN has some) differ in resources and are all kept.
  auto same = [](const InspectedKernel& a, const InspectedKernel& b) {
    const auto& x = a.resources;
    const auto& y = b.resources;
    return a.arch == b.arch && a.mangled_name == b.mangled_name && x.vgpr_per_thread == y.vgpr_per_thread &&
           x.agpr_per_thread == y.agpr_per_thread && x.sgpr_per_wave == y.sgpr_per_wave && x.lds_bytes == y.lds_bytes &&
           x.scratch_bytes == y.scratch_bytes && a.constant_bytes == b.constant_bytes;
  };
  report.kernels.erase(std::unique(report.kernels.begin(), report.kernels.end(), same), report.kernels.end());
  return report;
}

}  // namespace rpl::analysis
