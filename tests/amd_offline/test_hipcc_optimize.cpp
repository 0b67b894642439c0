// The AMD side of rocm-perf optimize's guards on real hipcc builds (Debian's, no GPU needed): two
// builds of the softmax testbed hold the same code objects (the deterministic-rebuild check) and an
// unrolled variant does not; the kernel's code object is found for the target it was built for and
// only that one; its resources and wave64 occupancy read as the spill and occupancy guards read them,
// and those guards' findings on real code objects: a kernel with scratch, one with more registers.
// The capture, replays and profile run on the stand-in HSA runtime in test_hsa_stand_in.cpp.
#include <map>

#include <gtest/gtest.h>

#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/core/files.hpp>
#include <rpl/optimize/builder.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/resource_guard.hpp>
#include <rpl/optimize/source_edits.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

TEST(AmdOfflineOptimize, HipccBuildsOfTheTestbedThroughTheGuards) {
  const std::string hipcc = RPL_HIPCC;
  if (hipcc.empty() || hipcc.find("NOTFOUND") != std::string::npos) FAIL() << "hipcc not found: run scripts/setup.sh (Debian's hipcc package)";
  const fs::path source = source_dir() / "examples/softmax/softmax_testbed.cu";
  const auto parsed = optimize::parse_kernel_file(source);
  const auto* kernel = parsed.find("softmax_naive");
  ASSERT_NE(kernel, nullptr);
  const auto unrolled = optimize::unroll_variants(parsed, *kernel, {8});
  ASSERT_FALSE(unrolled.variants.empty());
  // An object file holds the offload bundle; linking would need the HIP runtime, not the point here.
  const optimize::VariantBuilder builder(hipcc + " -std=c++17 -x hip --offload-arch=gfx90a -O3 -c {SOURCE} -o {BINARY}", source, 300);
  const auto dir = fresh_dir("hipcc_optimize");
  const auto built = builder.build_all({{parsed.text, dir / "a"}, {parsed.text, dir / "b"}, {unrolled.variants[0].text, dir / "unrolled"}}, 3);
  for (const auto& b : built) ASSERT_TRUE(b.ok) << b.failure << "\n" << b.log;
  std::string difference;
  EXPECT_TRUE(optimize::same_machine_code(built[0].binary, built[1].binary, difference)) << difference;
  EXPECT_FALSE(optimize::same_machine_code(built[0].binary, built[2].binary, difference));
  EXPECT_NE(difference.find("(gfx90a"), std::string::npos) << difference;

  const auto code = optimize::kernel_code_object(built[0].binary, "gfx90a", kernel->mangled_name);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->substr(0, 4), "\x7f" "ELF");
  EXPECT_FALSE(optimize::kernel_code_object(built[0].binary, "gfx1030", kernel->mangled_name).has_value());

  analysis::InspectOptions io;
  io.arch = "gfx90a";
  io.kernel_regex = analysis::exact_name_regex(kernel->mangled_name);
  io.block = 256;
  for (const auto& b : built) {
    const auto report = analysis::inspect_binary(b.binary, io);
    ASSERT_EQ(report.kernels.size(), 1u);
    const auto& k = report.kernels[0];
    EXPECT_EQ(k.wave_size, 64);
    EXPECT_EQ(k.vgpr_spills + k.sgpr_spills + k.resources.scratch_bytes, 0);
    ASSERT_TRUE(k.occupancy.has_value());
    EXPECT_GT(k.occupancy->theoretical, 0.0);
    EXPECT_LE(k.occupancy->theoretical, 1.0);
    EXPECT_FALSE(k.occupancy->limiter.empty());
  }
}

// tests/amd_offline/kernels.hip built for gfx90a: pressure<4> is the "original"; scratch_user keeps
// an array in scratch, pressure<200> takes more registers than two waves per SIMD allow.
TEST(AmdOfflineOptimize, TheResourceGuardOnRealCodeObjects) {
  const std::string hipcc = RPL_HIPCC;
  if (hipcc.empty() || hipcc.find("NOTFOUND") != std::string::npos) FAIL() << "hipcc not found: run scripts/setup.sh (Debian's hipcc package)";
  const fs::path hsaco = fresh_dir("hipcc_resources") / "gfx90a.hsaco";
  ProcessOptions p;
  p.argv = {hipcc, "-O3", "--offload-arch=gfx90a", "--cuda-device-only", "--no-gpu-bundle-output", "-c",
            (source_dir() / "tests/amd_offline/kernels.hip").string(), "-o", hsaco.string()};
  p.capture_output = true;
  ASSERT_TRUE(run_process(p).ok());
  analysis::InspectOptions io;
  io.block = 256;
  std::map<std::string, analysis::InspectedKernel> kernels;
  for (auto& k : analysis::inspect_binary(hsaco, io).kernels) kernels[k.mangled_name] = std::move(k);
  const auto& original = kernels.at("_Z8pressureILi4EEvPKfPfi");
  auto found = optimize::compare_resources(original, kernels.at("_Z12scratch_userPKiPf"));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].guard, "spills") << found[0].reason;
  found = optimize::compare_resources(original, kernels.at("_Z8pressureILi200EEvPKfPfi"));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].guard, "occupancy");
  EXPECT_NE(found[0].reason.find("limited by vgpr"), std::string::npos) << found[0].reason;
  // An unrolled loop is stopped by either; any other candidate carries them as advisories.
  EXPECT_TRUE(optimize::resources_prefilter("unroll"));
  EXPECT_FALSE(optimize::resources_prefilter("file"));
}

}  // namespace
}  // namespace rpl::test
