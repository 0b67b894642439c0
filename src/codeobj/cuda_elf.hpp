#pragma once
// Reading CUDA device code without the CUDA toolkit: cubins out of fatbins, and kernel resources
// out of each cubin's .nv.info attributes and per-kernel sections. The layouts are undocumented by
// NVIDIA; what is read here was checked against cuobjdump and ptxas (tests/unit/codeobj).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <rpl/codeobj/cuda_binary.hpp>

namespace rpl::codeobj::detail {

constexpr uint16_t kEmCuda = 190;              // EM_CUDA: a cubin
constexpr uint32_t kFatbinMagic = 0xBA55ED50;  // fatbin files and .nv_fatbin sections start with it

struct Cubin {
  std::string image;   // the device ELF, decompressed
  std::string origin;  // for messages: file and fatbin entry
};

/// The cubins in a file's bytes: the file itself when it is a cubin, else every ELF entry of its
/// fatbins (a fatbin file, or an executable's or library's .nv_fatbin section). PTX entries are
/// skipped. Error(bad_input) on a truncated or malformed fatbin or a corrupt compressed entry.
std::vector<Cubin> extract_cubins(std::string_view bytes, const std::string& origin);

/// The kernels (entry functions) of one cubin.
std::vector<CudaKernelInfo> read_cubin_kernels(const Cubin& cubin);

}  // namespace rpl::codeobj::detail
