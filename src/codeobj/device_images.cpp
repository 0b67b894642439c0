#include <rpl/codeobj/device_images.hpp>

#include <rpl/codeobj/amd_code_object.hpp>
#include <rpl/codeobj/cuda_binary.hpp>

#include "cuda_elf.hpp"
#include "elf_image.hpp"

namespace rpl::codeobj {

std::vector<DeviceImage> device_images(std::string_view content, const std::string& origin) {
  std::vector<DeviceImage> out;
  if (is_cuda_binary(content)) {
    for (const auto& entry : detail::find_cubins(content, origin)) {
      const auto cubin = detail::load_cubin(entry);
      out.push_back({detail::cubin_arch(cubin), std::string(cubin.image)});
    }
    return out;
  }
  const bool bundle = content.rfind("__CLANG_OFFLOAD_BUNDLE__", 0) == 0 || content.rfind("CCOB", 0) == 0;
  bool amd = bundle;
  if (!amd && detail::is_elf(content)) {
    const detail::ElfImage elf(content, origin);
    amd = elf.header().e_machine == 224;  // EM_AMDGPU
    for (const auto& s : elf.sections()) amd = amd || s.name == ".hip_fatbin";
  }
  if (amd) {
    for_each_amd_image(content, origin, [&](std::string_view image, const std::string&) {
      out.push_back({parse_hsaco(image, origin).arch, std::string(image)});
    });
  }
  return out;
}

}  // namespace rpl::codeobj
