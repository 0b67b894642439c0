// Kernel names people can read, on the real names of the bundled PyTorch trace (recorded on an
// H100) and on hand-made ones for the edges.
#include <set>

#include <gtest/gtest.h>

#include <rpl/analysis/short_names.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"

namespace rpl::analysis {
namespace {

std::map<std::string, std::string> short_names_of_the_pytorch_trace() {
  const auto trace = trace::read_rocpd({test::source_dir() / "examples/traces/torch_two_streams_h100.db"});
  std::map<std::string, std::string> out;
  for (const auto& s : trace.symbols) out[s.name()] = short_kernel_name(s.name());
  return out;
}

TEST(ShortNames, ThePytorchKernels) {
  std::set<std::string> shorts;
  size_t longest = 0;
  for (const auto& [full, short_name] : short_names_of_the_pytorch_trace()) {
    shorts.insert(short_name);
    longest = std::max(longest, full.size());
    EXPECT_LE(short_name.size(), 130u) << short_name;
  }
  EXPECT_GT(longest, 5000u) << "the trace holds a name of kilobytes";
  EXPECT_EQ(shorts, (std::set<std::string>{
                        "at::native::distribution_elementwise_grid_stride_kernel<float, 4, normal_and_transform\u2026>",
                        "at::native::vectorized_elementwise_kernel<4, launch_clamp_scalar\u2026>",
                        "at::native::vectorized_elementwise_kernel<4, AUnaryFunctor\u2026>",
                        "at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, array<char*, 3ul>>",
                        "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_kernel__5x_"
                        "cublas"}));
}

TEST(ShortNames, TheEdges) {
  EXPECT_EQ(short_kernel_name("_Z13softmax_naivePKfPfii"), "_Z13softmax_naivePKfPfii");
  EXPECT_EQ(short_kernel_name("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(short_kernel_name("softmax_naive(float const*, float*, int, int)"), "softmax_naive");
  EXPECT_EQ(short_kernel_name("void sgemm_tiled<64, 64, 16, 4, 4>(int, int, int, float const*, float const*, float*)"),
            "sgemm_tiled<64, 64, 16, \u2026>");
  EXPECT_EQ(short_kernel_name("void ns::(anonymous namespace)::k<int>()"), "ns::k<int>");
  EXPECT_EQ(short_kernel_name(""), "");
  EXPECT_EQ(short_kernel_name("void f<(unbalanced>(int"), "f<(unbalanced>(int");
}

// What stays of a kernel's name when a tuner's configurations change its template arguments.
TEST(ShortNames, TheFunctionNameDropsTheLastTemplateArguments) {
  EXPECT_EQ(kernel_function_name("void sgemm_tiled<64, 64, 16, 4, 4>(int, int, int, float const*, float const*, float*)"),
            "sgemm_tiled");
  EXPECT_EQ(kernel_function_name("void ns::(anonymous namespace)::Outer<int>::k<std::pair<int, int>, 4>(float*)"),
            "ns::Outer<int>::k");
  EXPECT_EQ(kernel_function_name("matmul_kernel"), "matmul_kernel");
  EXPECT_EQ(kernel_function_name("softmax_naive(float const*, float*, int, int)"), "softmax_naive");
  EXPECT_EQ(kernel_function_name("_Z13softmax_naivePKfPfii"), "_Z13softmax_naivePKfPfii");
  EXPECT_EQ(kernel_function_name("f<unbalanced>>"), "f<unbalanced>>");
  EXPECT_EQ(kernel_function_name(""), "");
}

TEST(ShortNames, UniqueWithinAnOutput) {
  const std::string a = "void k<4, ns::launch(int)::{lambda()#1}>(int)", b = "void k<4, ns::launch(int)::{lambda()#2}>(int)";
  const auto names = unique_short_names({b, a, "void other<int>(int)", a});
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names.at(a), "k<4, launch\u2026> (1 of 2)");
  EXPECT_EQ(names.at(b), "k<4, launch\u2026> (2 of 2)");
  EXPECT_EQ(names.at("void other<int>(int)"), "other<int>");
}

}  // namespace
}  // namespace rpl::analysis
