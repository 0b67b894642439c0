// Variants built with the user's build command in the optimizer's own folders, their relative
// includes resolving as beside the original; the deterministic-rebuild check.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/optimize/builder.hpp>

#include "test_support.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

const fs::path kKernel = test::source_dir() / "tests/fixtures/optimize/with_header/kernel.cu";
// The C preprocessor as a stand-in compiler: its output shows what the included files held, and
// __TIME__ in a source makes two of its builds differ.
const std::string kPreprocess = "cpp -P {SOURCE} -o {BINARY}";

TEST(VariantBuilder, TheTemplateNeedsSourceAndBinary) {
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { VariantBuilder("nvcc -O3 {SOURCE}", kKernel, 60); }, &message), Errc::bad_input);
  EXPECT_EQ(message, "--build 'nvcc -O3 {SOURCE}' has no {BINARY}: the optimizer builds each variant with it");
  EXPECT_EQ(test::error_code_of([&] { VariantBuilder("nvcc {SOURCE} -o {BINARY} -arch={ARCH}", kKernel, 60); }, &message),
            Errc::bad_input);
  EXPECT_NE(message.find("unknown placeholder {ARCH}"), std::string::npos) << message;
  EXPECT_EQ(test::error_code_of([&] { VariantBuilder("nvcc '{SOURCE} -o {BINARY}", kKernel, 60); }), Errc::bad_input);
}

TEST(VariantBuilder, RelativeIncludesResolveFromTheVariantsFolder) {
  const std::string text = read_file(kKernel);
  const auto anchored = anchor_relative_includes(text + "#include \"not_there.h\"\n#include <cstdio>\n", kKernel.parent_path());
  EXPECT_NE(anchored.find("#include \"" + (kKernel.parent_path() / "include/shared_constant.h").string() + "\""),
            std::string::npos)
      << anchored;
  EXPECT_NE(anchored.find("#include \"not_there.h\""), std::string::npos);
  EXPECT_NE(anchored.find("#include <cstdio>"), std::string::npos);
  const VariantBuilder builder(kPreprocess, kKernel, 60);
  const auto dir = test::fresh_dir("variant");
  const auto built = builder.build(text, dir / "v1");
  ASSERT_TRUE(built.ok) << built.failure << "\n" << built.log;
  EXPECT_EQ(built.source, dir / "v1" / "kernel.cu");
  EXPECT_NE(read_file(built.binary).find("x[0] *= 3.0f"), std::string::npos) << "the header's macro, expanded";
  EXPECT_EQ(read_file(kKernel), text) << "the original is never written";
}

// A kernel in a header: with {SOURCE_DIR} the program's other files are built beside the variant,
// so they include it; includes that leave the folder still resolve; other files are not copied.
TEST(VariantBuilder, AHeadersVariantReachesTheFilesThatIncludeIt) {
  const fs::path header = test::source_dir() / "tests/fixtures/optimize/header_kernel/scale.cuh";
  const std::string original = read_file(header);
  const VariantBuilder builder("cpp -P {SOURCE_DIR}/main.cu -o {BINARY}", header, 60);
  const auto dir = test::fresh_dir("source_dir");
  std::string variant = original;
  variant.replace(variant.find("SHARED_CONSTANT * N"), 19, "SHARED_CONSTANT * N * 2");
  const auto built = builder.build(variant, dir / "v");
  ASSERT_TRUE(built.ok) << built.failure << "\n" << built.log;
  const std::string preprocessed = read_file(built.binary);
  EXPECT_NE(preprocessed.find("x[0] *= 3.0f * N * 2"), std::string::npos) << preprocessed;
  EXPECT_NE(preprocessed.find("void launch_scale"), std::string::npos) << preprocessed;
  EXPECT_EQ(read_file(dir / "v/main.cu"), read_file(header.parent_path() / "main.cu")) << "its include names a copied file";
  EXPECT_FALSE(fs::exists(dir / "v/notes.txt"));
  EXPECT_NE(read_file(dir / "v/scale.cuh").find("#include \"" + (header.parent_path() / "../with_header/include/shared_constant.h").lexically_normal().string()),
            std::string::npos);
  EXPECT_EQ(read_file(header), original) << "the original is never written";
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { VariantBuilder("nvcc main.cu -o {BINARY}", header, 60); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("has no {SOURCE} (or {SOURCE_DIR})"), std::string::npos) << message;
}

TEST(VariantBuilder, AFailedBuildKeepsItsOutputForTheRepair) {
  const VariantBuilder builder("sh -c \"echo 'kernel.cu(3): error: expected a ;' >&2; exit 1\" {SOURCE} {BINARY}", kKernel, 60);
  const auto built = builder.build("broken", test::fresh_dir("failing"));
  EXPECT_FALSE(built.ok);
  EXPECT_EQ(built.failure, "the build exited with status 1");
  EXPECT_NE(built.log.find("error: expected a ;"), std::string::npos) << built.log;
}

TEST(VariantBuilder, ManyAtOnceInOrder) {
  const VariantBuilder builder(kPreprocess, kKernel, 60);
  const auto dir = test::fresh_dir("parallel");
  std::vector<std::pair<std::string, fs::path>> variants;
  for (int i = 0; i < 6; ++i) variants.push_back({"int variant_" + std::to_string(i) + ";\n", dir / std::to_string(i)});
  const auto built = builder.build_all(variants, 3);
  ASSERT_EQ(built.size(), 6u);
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(built[i].ok) << built[i].failure;
    EXPECT_NE(read_file(built[i].binary).find("variant_" + std::to_string(i)), std::string::npos);
  }
}

TEST(VariantBuilder, AClockInTheSourceMakesTwoBuildsDiffer) {
  const VariantBuilder builder(kPreprocess, kKernel, 60);
  const auto dir = test::fresh_dir("determinism");
  const std::string steady = "const char* version = \"1.0\";\n";
  const std::string clocked = "const char* built_at = __TIME__;\n";
  std::string difference;
  const auto a = builder.build(steady, dir / "a"), b = builder.build(steady, dir / "b");
  EXPECT_TRUE(same_machine_code(a.binary, b.binary, difference)) << difference;
  const auto c = builder.build(clocked, dir / "c");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const auto d = builder.build(clocked, dir / "d");
  EXPECT_FALSE(same_machine_code(c.binary, d.binary, difference));
  EXPECT_NE(difference.find("the binaries differ from byte"), std::string::npos) << difference;
  EXPECT_EQ(time_dependent_macros(clocked), (std::vector<std::string>{"__TIME__ (line 1)"}));
  EXPECT_TRUE(time_dependent_macros(steady).empty());
}

// With a CUDA compiler here (no GPU needed to compile): two builds of the softmax testbed hold the
// same cubins, and the images are what is compared.
TEST(VariantBuilder, TwoNvccBuildsOfTheTestbedHoldTheSameCubins) {
  const auto nvcc = find_executable("nvcc", {"/usr/local/cuda/bin"});
  if (!nvcc) GTEST_SKIP() << "no CUDA compiler (nvcc) on this machine";
  const fs::path source = test::source_dir() / "examples/softmax/softmax_testbed.cu";
  const VariantBuilder builder(nvcc->string() + " -O3 -arch=sm_90 {SOURCE} -o {BINARY}", source, 300);
  const auto dir = test::fresh_dir("nvcc");
  const auto built = builder.build_all({{read_file(source), dir / "a"}, {read_file(source), dir / "b"}}, 2);
  ASSERT_TRUE(built[0].ok && built[1].ok) << built[0].failure << built[0].log;
  std::string difference;
  EXPECT_TRUE(same_machine_code(built[0].binary, built[1].binary, difference)) << difference;
}

}  // namespace
}  // namespace rpl::optimize
