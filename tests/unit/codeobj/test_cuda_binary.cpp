// CUDA binaries: recognizing them, and reading cuobjdump's resource usage.
#include <map>

#include <gtest/gtest.h>

#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

#include "test_support.hpp"

namespace rpl::codeobj {
namespace {
namespace fs = std::filesystem;

// As cuobjdump 13.0 prints it for an executable (tests/fixtures/cuobjdump_*.txt are real ones).
const char* kResourceUsage = R"txt(
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z5triadPfPKfS1_fm:
  REG:14 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:936 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z9fma_boundPfi:
  REG:16 STACK:8 SHARED:1024 LOCAL:24 CONSTANT[2]:8 CONSTANT[0]:908 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin ptx code:
================
arch = sm_90
)txt";

TEST(CudaBinary, ParsesResourceUsage) {
  auto kernels = parse_cuobjdump_resource_usage(kResourceUsage);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "_Z5triadPfPKfS1_fm");
  EXPECT_EQ(kernels[0].arch, "sm_90");
  EXPECT_EQ(kernels[0].registers, 14);
  EXPECT_EQ(kernels[0].constant_bytes, 936);
  EXPECT_EQ(kernels[1].name, "_Z9fma_boundPfi");
  EXPECT_EQ(kernels[1].shared_bytes, 1024);
  EXPECT_EQ(kernels[1].local_bytes, 24);
  EXPECT_EQ(kernels[1].stack_bytes, 8);
  EXPECT_EQ(kernels[1].constant_bytes, 908);  // CONSTANT[0], not CONSTANT[2]
  EXPECT_TRUE(parse_cuobjdump_resource_usage("").empty());
}

TEST(CudaBinary, RealCuobjdumpOutput) {
  // cuobjdump 13.0 on the roofline_calibration testbed, a PTX entry before the machine code.
  auto kernels = parse_cuobjdump_resource_usage(
      test::read_text(test::source_dir() / "tests/fixtures/cuobjdump_roofline_calibration.txt"));
  ASSERT_EQ(kernels.size(), 4u);
  std::map<std::string, int64_t> regs;
  for (const auto& k : kernels) {
    EXPECT_EQ(k.arch, "sm_90");
    regs[k.name] = k.registers;
  }
  EXPECT_EQ(regs["_Z5triadPfPKfS1_fm"], 14);
  EXPECT_EQ(regs["_Z11stream_copyPKfPfm"], 10);
  EXPECT_EQ(regs["_Z9fma_boundPfi"], 16);
  EXPECT_EQ(regs["_Z11spin_kernelyPi"], 10);
}

TEST(CudaBinary, RecognizesCubinsFatbinsAndExecutables) {
  const fs::path source = test::source_dir() / "examples/softmax/softmax_testbed.cu";
  const fs::path dir = test::fresh_dir("nvcc");
  const auto nvcc = find_executable("nvcc", {"/usr/local/cuda/bin"});
  if (!nvcc) GTEST_SKIP() << "nvcc not found";
  for (const auto& [flag, name] : std::vector<std::pair<std::string, std::string>>{
           {"-cubin", "k.cubin"}, {"-fatbin", "k.fatbin"}, {"", "k_app"}}) {
    ProcessOptions p;
    p.argv = {nvcc->string(), "-arch=sm_90", "-o", (dir / name).string(), source.string()};
    if (!flag.empty()) p.argv.insert(p.argv.begin() + 1, flag);
    p.capture_output = true;
    auto r = run_process(p);
    ASSERT_TRUE(r.ok()) << r.output;
    EXPECT_TRUE(is_cuda_binary(dir / name)) << name;
  }
  EXPECT_FALSE(is_cuda_binary("/bin/true"));
  if (!find_executable("cuobjdump", {"/usr/local/cuda/bin"})) {
    try {
      read_cuda_kernels(dir / "k.cubin");
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::missing_tool);
      EXPECT_NE(std::string(e.what()).find("cuobjdump is not in PATH"), std::string::npos);
    }
  } else {
    auto kernels = read_cuda_kernels(dir / "k_app");
    ASSERT_EQ(kernels.size(), 2u);  // softmax_naive, and spin_kernel from the shared header
    EXPECT_EQ(kernels[0].name, "_Z13softmax_naivePKfPfii");
  }
}

}  // namespace
}  // namespace rpl::codeobj
