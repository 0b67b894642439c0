#pragma once
// Kernels that a vendor library ships, known by the names its kernels carry: their registers and
// tiles are the library's choice, so the advice for them is another algorithm or precision, not
// another register budget.
#include <optional>
#include <string>

namespace rpl::analysis {

struct LibraryKernel {
  std::string library;          // "cuBLAS", "cuDNN", "CUTLASS", "Tensile (rocBLAS, hipBLASLt)", "Composable Kernel"
  bool fp32_gemm_simt = false;  // an FP32 GEMM on CUDA cores (ffma, simt, sgemm): no tensor cores
};

/// The library a kernel's (demangled or mangled) name says it belongs to; nothing for other kernels.
std::optional<LibraryKernel> library_kernel(const std::string& name);

}  // namespace rpl::analysis
