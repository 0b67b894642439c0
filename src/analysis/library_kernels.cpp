// Names seen in real traces: cuBLAS's "sm80_xmma_gemm_f32f32_..._ffma_..._cublas" and
// "cutlass::Kernel2<cutlass_80_simt_sgemm_...>" (a PyTorch FP32 training step on an H200,
// tests/fixtures/kineto), "nvjet_sm90_tst_..." (PyTorch's BF16 matmul, tests/fixtures/ncu_*_torch_*),
// "cutlass3x_sm100_tensorop_..." (cuBLASLt, tests/fixtures/real/ncu-superbench-b200), and the
// architecture-named GEMMs PyTorch profiles show ("ampere_sgemm_128x64_nn"); Tensile's
// "Cijk_Ailk_Bljk_..." (rocBLAS and hipBLASLt) and Composable Kernel's "ck::" and "ck_tile::".
// Plain searches, not regular expressions: PyTorch's names run to kilobytes.
#include <rpl/analysis/library_kernels.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace rpl::analysis {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// token at the start of the name or after a character no identifier has ("void ck::...").
bool has_token(std::string_view name, std::string_view token) {
  for (size_t at = name.find(token); at != std::string_view::npos; at = name.find(token, at + 1)) {
    if (at == 0 || !identifier_char(name[at - 1])) return true;
  }
  return false;
}

bool has(std::string_view name, std::string_view part) { return name.find(part) != std::string_view::npos; }

// cuBLAS's GEMMs named by architecture ("ampere_sgemm_128x64_nn", "ampere_s1688gemm_fp16_...").
bool legacy_cublas_gemm(std::string_view lower) {
  for (std::string_view arch : {"maxwell_", "volta_", "turing_", "ampere_"}) {
    if (lower.rfind(arch, 0) == 0 && has(lower, "gemm")) return true;
  }
  return false;
}

}  // namespace

std::optional<LibraryKernel> library_kernel(const std::string& name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  LibraryKernel k;
  if (has(lower, "cudnn")) {
    k.library = "cuDNN";
  } else if (has(lower, "cublas") || name.rfind("nvjet_", 0) == 0 || has(lower, "xmma") || legacy_cublas_gemm(lower)) {
    k.library = "cuBLAS";
  } else if (has(lower, "cutlass")) {
    k.library = "CUTLASS";
  } else if (has_token(name, "Cijk_") || has_token(name, "Custom_Cijk_")) {
    k.library = "Tensile (rocBLAS, hipBLASLt)";
  } else if (has_token(name, "ck::") || has_token(name, "ck_tile::")) {
    k.library = "Composable Kernel";
  } else {
    return std::nullopt;
  }
  static constexpr std::array<std::string_view, 6> fp32_simt = {"_ffma_",         "simt_sgemm",   "ampere_sgemm_",
                                                                "volta_sgemm_",   "turing_sgemm_", "maxwell_sgemm_"};
  k.fp32_gemm_simt = std::any_of(fp32_simt.begin(), fp32_simt.end(), [&](std::string_view p) { return has(lower, p); });
  return k;
}

}  // namespace rpl::analysis
