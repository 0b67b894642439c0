#pragma once
// Reading CUDA device code without the CUDA toolkit: cubins out of fatbins, and kernel resources
// out of each cubin's .nv.info attributes and per-kernel sections. The layouts are undocumented by
// NVIDIA; what is read here was checked against cuobjdump and ptxas (tests/unit/codeobj).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rpl/codeobj/cuda_binary.hpp>

namespace rpl::codeobj::detail {

constexpr uint16_t kEmCuda = 190;              // EM_CUDA: a cubin
constexpr uint32_t kFatbinMagic = 0xBA55ED50;  // fatbin files and .nv_fatbin sections start with it

/// A cubin found in a file, not yet decompressed: finding them all is cheap, and each can then
/// be read on its own (one at a time per thread, so memory is bounded by the largest entry).
struct CubinEntry {
  std::string_view payload;      // as stored in the file
  uint64_t flags = 0;            // the fatbin entry's flags; 0 for a bare cubin
  uint64_t compressed_size = 0;
  uint64_t size = 0;             // uncompressed
  std::string arch;              // from the fatbin entry: "sm_90", "sm_90a", "sm_100f"; empty for a bare cubin
  std::string origin;            // for messages: file and fatbin entry
};

struct Cubin {
  std::unique_ptr<char[]> storage;  // the decompressed image, when it was compressed (not zeroed first)
  std::string_view image;  // the device ELF
  std::string origin;
  std::string entry_arch;  // CubinEntry::arch
};

/// The cubins in a file's bytes: the file itself when it is a cubin, else every ELF entry of its
/// fatbins (a fatbin file, or an executable's or library's .nv_fatbin section). PTX entries are
/// skipped. Error(bad_input) on a truncated or malformed fatbin.
std::vector<CubinEntry> find_cubins(std::string_view bytes, const std::string& origin);

/// The entry's image, decompressed where it is compressed. Error(bad_input) on a corrupt entry.
Cubin load_cubin(const CubinEntry& entry);

/// "sm_90", or "sm_90a"/"sm_100f" for an arch-specific or family target.
std::string cubin_arch(const Cubin& cubin);

/// The kernels (entry functions) of one cubin whose mangled names wanted accepts (all when empty).
/// Their arch carries the "a" or "f" of an arch-specific or family target.
std::vector<CudaKernelInfo> read_cubin_kernels(const Cubin& cubin,
                                               const std::function<bool(const std::string&)>& wanted = {});

}  // namespace rpl::codeobj::detail
