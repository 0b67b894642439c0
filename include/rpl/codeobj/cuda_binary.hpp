#pragma once
// Static resources of the kernels in CUDA binaries (cubins, fatbins, executables and libraries with
// embedded device code), read through `cuobjdump --dump-resource-usage` (reference/cuda.md §7).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rpl::codeobj {

struct CudaKernelInfo {
  std::string name;        // mangled
  std::string arch;        // "sm_90"
  int64_t registers = 0;   // REG
  int64_t shared_bytes = 0;    // SHARED: static shared memory
  int64_t local_bytes = 0;     // LOCAL: local memory per thread
  int64_t stack_bytes = 0;     // STACK
  int64_t constant_bytes = 0;  // CONSTANT[0]: parameters and driver constants
};

/// True when the file holds NVIDIA device code: a cubin (EM_CUDA), a fatbin, or an ELF with .nv_fatbin.
bool is_cuda_binary(const std::filesystem::path& file);

/// Kernels in cuobjdump's resource-usage text, sorted by arch, then name.
std::vector<CudaKernelInfo> parse_cuobjdump_resource_usage(const std::string& text);

/// Runs cuobjdump on the file. Error(missing_tool) without cuobjdump; Error(bad_input) when it fails.
std::vector<CudaKernelInfo> read_cuda_kernels(const std::filesystem::path& file);

}  // namespace rpl::codeobj
