#pragma once
// Static resources of the kernels in CUDA binaries (cubins, fatbins, executables and libraries with
// embedded device code), read from the cubins' own ELF attributes (.nv.info), with no CUDA toolkit.
// The figures are cuobjdump --dump-resource-usage's (reference/cuda.md §7), which the tests hold
// them to, except static shared memory on sm_90+ (see cuda_nv_info.cpp).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::codeobj {

struct CudaKernelInfo {
  std::string name;        // mangled
  std::string arch;        // "sm_90", or "sm_90a" / "sm_100f" for arch-specific and family targets
  int64_t registers = 0;       // REG
  int64_t shared_bytes = 0;    // SHARED: static shared memory
  int64_t local_bytes = 0;     // LOCAL: statically allocated local memory per thread
  int64_t stack_bytes = 0;     // STACK: per-thread stack (spills and local arrays)
  int64_t constant_bytes = 0;  // CONSTANT[0]: parameters and driver constants
};

/// True when a file's bytes hold NVIDIA device code: a cubin (EM_CUDA), a fatbin, or an ELF with
/// .nv_fatbin.
bool is_cuda_binary(std::string_view content);

/// Kernels in cuobjdump's resource-usage text, sorted by arch, then name: the tests hold
/// read_cuda_kernels to it.
std::vector<CudaKernelInfo> parse_cuobjdump_resource_usage(const std::string& text);

/// Which kernels to read. An entry whose arch is refused is not even decompressed.
struct CudaKernelFilter {
  std::function<bool(const std::string& arch)> arch;     // "sm_90a"
  std::function<bool(const std::string& mangled)> kernel;
  /// Called with each cubin's stored bytes once they are read (MappedFile::release).
  std::function<void(std::string_view)> done_with;
};

/// Every kernel with machine code in a file's bytes that the filter accepts, sorted by arch, then
/// name. The file's cubins are decompressed and read one at a time per thread (threads: 0 for
/// every core), so memory stays near the largest cubin's size. Error(bad_input), naming origin,
/// for a malformed, truncated or non-CUDA file, or one with no machine code (PTX only).
std::vector<CudaKernelInfo> read_cuda_kernels(std::string_view content, const std::string& origin,
                                              const CudaKernelFilter& filter = {}, unsigned threads = 0);
/// The architectures a file has machine code for ("sm_80", "sm_90a"), sorted, without reading kernels.
std::vector<std::string> cuda_arches(std::string_view content, const std::string& origin);

/// The names one cubin image defines, mangled and sorted: its kernels (entry functions) and its
/// module-scope variables (__device__ and __constant__). Error(bad_input), naming origin, when the
/// image is not a well-formed cubin.
struct CubinSymbols {
  std::vector<std::string> kernels;
  std::vector<std::string> variables;
};
CubinSymbols read_cubin_symbols(std::string_view image, const std::string& origin);

/// The same, reading the file.
std::vector<CudaKernelInfo> read_cuda_kernels(const std::filesystem::path& file);

}  // namespace rpl::codeobj
