// Proposals that need no model: launch bounds for the captured block size on both vendors, and
// __restrict__ where the oracle's snapshot shows the pointer parameters in allocations of their
// own (aliasing ones are refused). Each variant passes the source guards, its signature unchanged.
#include <cstring>

#include <gtest/gtest.h>

#include <rpl/core/output_file.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/optimize/guards.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/rule_proposals.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

// scale(float*, float const*, int), as the test snapshot's launch.
const std::string kScale = R"(#include <cuda_runtime.h>
__global__ void scale(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}
)";

KernelSource scale_source(const std::string& text = kScale) { return parse_kernel_source("/tmp/scale.cu", text); }

// The test snapshot with its launch's pointers set (the regions are 0x7f0000200000, 16 bytes, and
// 0x7f0000000000, 8 bytes).
isolate::Snapshot launched_with(const fs::path& dir, uint64_t out, uint64_t in) {
  test::write_test_snapshot(dir);
  std::string kernarg(20, '\0');
  const int32_t n = 4;
  std::memcpy(kernarg.data(), &out, 8);
  std::memcpy(kernarg.data() + 8, &in, 8);
  std::memcpy(kernarg.data() + 16, &n, 4);
  write_output_file(dir / "kernarg.bin", kernarg);
  return isolate::read_snapshot(dir);
}

void expect_guards_pass(const KernelSource& s, const SourceVariant& v) {
  const auto again = parse_kernel_source(s.path, v.text);
  const auto verdict = check_source_guards(s, s.kernels.at(0), again);
  EXPECT_TRUE(verdict.passed()) << v.origin << ": " << verdict.guard << ": " << verdict.reason;
  EXPECT_EQ(again.kernels.at(0).mangled_name, s.kernels.at(0).mangled_name) << v.origin;
}

TEST(LaunchBounds, ThreeMinimaOfBlocksPerSmOnNvidia) {
  const auto s = scale_source();
  const auto p = launch_bounds_variants(s, s.kernels[0], "sm_90", 256);
  ASSERT_EQ(p.variants.size(), 3u);
  EXPECT_TRUE(p.refused.empty());
  EXPECT_EQ(p.variants[0].origin, "__launch_bounds__(256, 1)");
  EXPECT_EQ(p.variants[2].origin, "__launch_bounds__(256, 4)");
  EXPECT_NE(p.variants[1].text.find("__global__ void __launch_bounds__(256, 2) scale(float* out"), std::string::npos) << p.variants[1].text;
  for (const auto& v : p.variants) expect_guards_pass(s, v);
  // 1024 threads: two blocks fill an SM of 2048 threads, four cannot be asked for.
  EXPECT_EQ(launch_bounds_variants(s, s.kernels[0], "sm_90", 1024).variants.size(), 2u);
}

TEST(LaunchBounds, TheAmdgpuAttributesOnAmd) {
  const auto s = scale_source();
  const auto p = launch_bounds_variants(s, s.kernels[0], "gfx90a", 256);
  ASSERT_EQ(p.variants.size(), 3u);
  // 256 work-items are 4 waves of 64: 2 and 4 workgroups per CU of 4 SIMDs are 2 and 4 waves per SIMD.
  EXPECT_EQ(p.variants[0].origin, "__attribute__((amdgpu_flat_work_group_size(1, 256)))");
  EXPECT_EQ(p.variants[1].origin, "__attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(2)))");
  EXPECT_EQ(p.variants[2].origin, "__attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(4)))");
  for (const auto& v : p.variants) expect_guards_pass(s, v);
}

TEST(LaunchBounds, AKernelThatHasThemAlreadyAndAnUnknownArchitecture) {
  const auto s = scale_source("__global__ void __launch_bounds__(128) scale(float* out, const float* in, int n) { out[0] = in[n]; }\n");
  EXPECT_EQ(s.kernels.at(0).launch_bounds, "__launch_bounds__(128)");
  auto p = launch_bounds_variants(s, s.kernels[0], "sm_90", 128);
  EXPECT_TRUE(p.variants.empty());
  ASSERT_EQ(p.refused.size(), 1u);
  EXPECT_NE(p.refused[0].find("has them already (__launch_bounds__(128))"), std::string::npos) << p.refused[0];
  // The matmul testbed's template kernel has them between its template header and its name.
  const auto sgemm = parse_kernel_file(test::source_dir() / "examples/matmul/sgemm_tiled.hpp");
  EXPECT_EQ(sgemm.find("sgemm_tiled")->launch_bounds, "__launch_bounds__((BM / TM) * (BN / TN))");
  EXPECT_TRUE(launch_bounds_variants(sgemm, *sgemm.find("sgemm_tiled"), "sm_90", 256).variants.empty());
  const auto plain = scale_source();
  p = launch_bounds_variants(plain, plain.kernels[0], "sm_12", 128);
  ASSERT_EQ(p.refused.size(), 1u);
  EXPECT_NE(p.refused[0].find("unknown architecture 'sm_12'"), std::string::npos);
}

TEST(Restrict, EachPointerInAnAllocationOfItsOwn) {
  const auto dir = test::fresh_dir("restrict-apart");
  const auto s = scale_source();
  const auto snap = launched_with(dir / "a", 0x7f0000200000, 0x7f0000000004);
  EXPECT_EQ(pointer_aliasing(s.kernels[0], snap), "");
  const auto p = restrict_variant(s, s.kernels[0], {snap, launched_with(dir / "b", 0x7f0000200008, 0)});
  ASSERT_EQ(p.variants.size(), 1u) << (p.refused.empty() ? "" : p.refused[0]);
  EXPECT_EQ(p.variants[0].origin, "__restrict__ on out, in");
  EXPECT_NE(p.variants[0].text.find("scale(float* __restrict__ out, const float* __restrict__ in, int n)"), std::string::npos);
  expect_guards_pass(s, p.variants[0]);
  const auto again = parse_kernel_source(s.path, p.variants[0].text);
  EXPECT_TRUE(again.kernels[0].parameters[0].restrict_qualified);
  EXPECT_EQ(again.kernels[0].parameter_types, s.kernels[0].parameter_types);
  // Once qualified, there is nothing left to propose.
  const auto none = restrict_variant(again, again.kernels[0], {snap});
  EXPECT_TRUE(none.variants.empty());
  EXPECT_EQ(none.refused, std::vector<std::string>{"__restrict__: every named pointer parameter has it already"});
}

TEST(Restrict, AliasingOrUnknownPointersAreRefused) {
  const auto dir = test::fresh_dir("restrict-aliasing");
  const auto s = scale_source();
  // In place: both point into the output's allocation, in the second oracle.
  auto p = restrict_variant(s, s.kernels[0], {launched_with(dir / "a", 0x7f0000200000, 0x7f0000000000),
                                              launched_with(dir / "b", 0x7f0000200000, 0x7f0000200008)});
  EXPECT_TRUE(p.variants.empty());
  ASSERT_EQ(p.refused.size(), 1u);
  EXPECT_EQ(p.refused[0], "__restrict__: out and in point into the same allocation 0x00007f0000200000 (oracle 2)");
  p = restrict_variant(s, s.kernels[0], {launched_with(dir / "c", 0x7f0000200000, 0x1234)});
  ASSERT_EQ(p.refused.size(), 1u);
  EXPECT_NE(p.refused[0].find("in points to 0x0000000000001234, in no captured allocation"), std::string::npos) << p.refused[0];
  const auto single = scale_source("__global__ void scale(float* out, int n) { out[n] = 1; }\n");
  p = restrict_variant(single, single.kernels[0], {});
  EXPECT_EQ(p.refused, std::vector<std::string>{"__restrict__: fewer than two pointer parameters, nothing to tell apart"});
}

}  // namespace
}  // namespace rpl::optimize
