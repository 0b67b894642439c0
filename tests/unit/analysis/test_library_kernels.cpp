// Vendor libraries' kernels, known by the names real traces gave them.
#include <gtest/gtest.h>

#include <rpl/analysis/library_kernels.hpp>

namespace rpl::analysis {
namespace {

TEST(LibraryKernels, RealNamesAreTheirLibrariesAndAnFp32SimtGemmIsSaid) {
  struct Case {
    const char* name;
    const char* library;
    bool fp32_simt;
  };
  for (const auto& c : std::vector<Case>{
           {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas",
            "cuBLAS", true},
           {"void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(cutlass_80_simt_sgemm_128x256_8x4_nt_align1::Params)",
            "CUTLASS", true},
           {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "cuBLAS", false},
           {"cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm_bias_f16_relu_aux_scalemax",
            "CUTLASS", false},
           {"ampere_sgemm_128x64_nn", "cuBLAS", true},
           {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_cudnn", "cuDNN", false},
           {"Cijk_Ailk_Bljk_HHS_BH_MT128x128x16_MI16x16x16x1_SN_1LDSB0", "Tensile (rocBLAS, hipBLASLt)", false},
           {"Custom_Cijk_Ailk_Bljk_F8H_HHS_BH_MT32x64x256_MI16x16x1_gfx942", "Tensile (rocBLAS, hipBLASLt)", false},
           {"void ck_tile::kentry<1, ck_tile::GroupedGemmKernel<...>>", "Composable Kernel", false},
       }) {
    const auto k = library_kernel(c.name);
    ASSERT_TRUE(k) << c.name;
    EXPECT_EQ(k->library, c.library) << c.name;
    EXPECT_EQ(k->fp32_gemm_simt, c.fp32_simt) << c.name;
  }
  // ampere_sgemm needs the library's name around it: a user's sgemm is the user's.
  EXPECT_FALSE(library_kernel("sgemm_naive(float const*, float const*, float*, int)")) << "no library named";
  for (const char* own : {"matmul_kernel", "_Z13softmax_naivePKfPfii", "void stack::push(int)", "void mock::run()", "xCijk_abc",
                          "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"}) {
    EXPECT_FALSE(library_kernel(own)) << own;
  }
}

}  // namespace
}  // namespace rpl::analysis
