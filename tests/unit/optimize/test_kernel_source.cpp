// The optimizer's view of a source file (libclang's AST): kernels, signatures, loops and whether
// each may be unrolled; the unroll variants; the guards on a candidate's source.
#include <map>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/optimize/guards.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/source_edits.hpp>

#include "test_support.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

fs::path fixture(const std::string& name) { return test::source_dir() / "tests/fixtures/optimize" / name; }

// The comment at the end of line `line` of text, after "// ".
std::string expectation(const std::string& text, unsigned line) {
  size_t at = 0;
  for (unsigned l = 1; l < line; ++l) at = text.find('\n', at) + 1;
  const std::string l = text.substr(at, text.find('\n', at) - at);
  const auto c = l.rfind("// ");
  return c == std::string::npos ? "" : l.substr(c + 3);
}

void expect_loops_as_commented(const KernelDefinition& k, const std::string& text) {
  ASSERT_FALSE(k.loops.empty());
  for (const auto& loop : k.loops) {
    const std::string expected = expectation(text, loop.line);
    ASSERT_FALSE(expected.empty()) << "line " << loop.line << " has no expectation";
    if (expected == "safe") {
      EXPECT_EQ(loop.refusal, "") << "line " << loop.line;
    } else {
      EXPECT_NE(loop.refusal.find(expected), std::string::npos) << "line " << loop.line << ": '" << loop.refusal << "'";
    }
  }
}

TEST(KernelSource, EachLoopOfTheCorpusIsJudgedAsItsCommentSays) {
  const auto s = parse_kernel_file(fixture("unroll_corpus.cu"));
  ASSERT_EQ(s.kernels.size(), 2u);
  const auto* k = s.find("corpus");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->loops.size(), 14u);
  expect_loops_as_commented(*k, s.text);
  // Nesting and the existing pragma.
  int nested = 0, with_pragma = 0;
  for (const auto& loop : k->loops) {
    nested += loop.depth == 1;
    if (loop.unroll_pragma) {
      ++with_pragma;
      EXPECT_EQ(s.text.substr(loop.unroll_pragma->begin, loop.unroll_pragma->end - loop.unroll_pragma->begin), "#pragma unroll 2\n");
    }
  }
  EXPECT_EQ(nested, 1);
  EXPECT_EQ(with_pragma, 1);
}

TEST(KernelSource, HipSpellingsOfTheHazards) {
  const auto s = parse_kernel_file(fixture("hip_corpus.hip"));
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].loops.size(), 3u);
  expect_loops_as_commented(s.kernels[0], s.text);
}

TEST(KernelSource, SignaturesAndTheOtherFunctions) {
  const auto s = parse_kernel_file(fixture("unroll_corpus.cu"));
  const auto* k = s.find("corpus");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->mangled_name, "_Z6corpusPfPKfPii");
  EXPECT_EQ(k->parameter_types, (std::vector<std::string>{"float *", "const float *", "int *", "int"}));
  EXPECT_EQ(k->template_parameters, "");
  EXPECT_EQ(s.text.substr(k->definition.begin, 16), "__global__ void ");
  EXPECT_EQ(s.text[k->definition.end - 1], '}');
  const auto* t = s.find("templated");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->template_parameters, "template <int TILE, typename T>");
  EXPECT_EQ(t->parameter_types, (std::vector<std::string>{"T *", "const T *", "int"}));
  std::map<std::string, bool> device_only;
  for (const auto& f : s.functions) device_only[f.name] = f.device_only;
  EXPECT_EQ(device_only, (std::map<std::string, bool>{{"twice", true}, {"both", false}, {"host_side", false}}));
}

TEST(KernelSource, TheSoftmaxTestbedsKernel) {
  const auto s = parse_kernel_file(test::source_dir() / "examples/softmax/softmax_testbed.cu");
  ASSERT_EQ(s.kernels.size(), 1u);
  const auto& k = s.kernels[0];
  EXPECT_EQ(k.name, "softmax_naive");
  EXPECT_EQ(k.mangled_name, "_Z13softmax_naivePKfPfii");
  ASSERT_EQ(k.loops.size(), 3u);
  for (const auto& loop : k.loops) EXPECT_EQ(loop.refusal, "") << loop.line;
  EXPECT_EQ(k.loops[0].line, 20u);
}

TEST(KernelSource, UnreadableAndKernellessFiles) {
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { parse_kernel_file("/nonexistent/k.cu"); }, &message), Errc::bad_input);
  const auto s = parse_kernel_source("/tmp/plain.cpp", "int main() { return 0; }\n");
  EXPECT_TRUE(s.kernels.empty());
}

TEST(UnrollVariants, APragmaPerSafeLoopAndFactorAndNothingElseChanges) {
  const auto s = parse_kernel_file(test::source_dir() / "examples/softmax/softmax_testbed.cu");
  const auto& k = s.kernels[0];
  const auto p = unroll_variants(s, k, {2, 4, 8});
  ASSERT_EQ(p.variants.size(), 9u);
  EXPECT_TRUE(p.refused.empty());
  EXPECT_EQ(p.variants[1].origin, "unroll loop 1 (line 20) by 4");
  const std::string& v = p.variants[1].text;
  EXPECT_EQ(v.size(), s.text.size() + std::string("#pragma unroll 4\n  ").size());
  EXPECT_NE(v.find("  #pragma unroll 4\n  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);"), std::string::npos);
  // Re-parsed, the variant has the same kernel, its loop now preceded by the pragma.
  const auto again = parse_kernel_source(s.path, v);
  ASSERT_EQ(again.kernels.size(), 1u);
  ASSERT_TRUE(again.kernels[0].loops[0].unroll_pragma);
  EXPECT_TRUE(check_source_guards(s, k, again).passed());
}

TEST(UnrollVariants, AnExistingPragmaIsReplacedAndUnsafeLoopsAreListed) {
  const auto s = parse_kernel_file(fixture("unroll_corpus.cu"));
  const auto* k = s.find("corpus");
  const auto p = unroll_variants(s, *k, {8});
  EXPECT_EQ(p.variants.size(), 5u);  // the five safe loops
  EXPECT_EQ(p.refused.size(), 9u);
  bool replaced = false, own_line = false;
  for (const auto& v : p.variants) {
    if (v.text.find("#pragma unroll 8\n  for (int i = 0; i < 8; ++i) out[i] *= 2;") != std::string::npos) {
      replaced = v.text.find("#pragma unroll 2") == std::string::npos;
    }
    // A loop that does not start its line gets the pragma on a line of its own.
    if (v.text.find("if (n > 4) \n#pragma unroll 8\nfor (int i = 0; i < 4; ++i) out[i] = 0;") != std::string::npos) {
      EXPECT_EQ(parse_kernel_source(s.path, v.text).find("corpus")->loops.size(), 14u);
      own_line = true;
    }
  }
  EXPECT_TRUE(replaced);
  EXPECT_TRUE(own_line);
}

// Hand-made variants of the softmax kernel against the guards.
class Guards : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = parse_kernel_file(test::source_dir() / "examples/softmax/softmax_testbed.cu");
    kernel_ = &source_.kernels.at(0);
    definition_ = source_.text.substr(kernel_->definition.begin, kernel_->definition.end - kernel_->definition.begin);
  }
  GuardVerdict with_definition(const std::string& text) {
    return check_source_guards(source_, *kernel_, parse_kernel_source(source_.path, splice_definition(source_, *kernel_, text)));
  }
  std::string replaced(const std::string& from, const std::string& to) {
    std::string d = definition_;
    const auto at = d.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return d.replace(at, from.size(), to);
  }
  KernelSource source_;
  const KernelDefinition* kernel_ = nullptr;
  std::string definition_;
};

TEST_F(Guards, TheSameDefinitionAndAnAddedDeviceHelperPass) {
  EXPECT_TRUE(with_definition(definition_).passed());
  const auto v = with_definition("__device__ float square(float v) { return v * v; }\n" +
                                 replaced("m = fmaxf(m, x[c]);", "m = fmaxf(m, square(x[c]));"));
  EXPECT_TRUE(v.passed()) << v.guard << ": " << v.reason;
}

// The candidate files the gpu tests give reach the GPU only through these guards.
TEST_F(Guards, TheSoftmaxCandidateFixturesPass) {
  for (const char* name : {"softmax_warp.cu", "softmax_warp_online.cu", "softmax_warp_vectors.cu", "softmax_no_max.cu",
                           "softmax_empty.cu", "softmax_forever.cu", "softmax_out_of_bounds.cu"}) {
    const auto v = with_definition(read_file(fixture(name)));
    EXPECT_TRUE(v.passed()) << name << ": " << v.guard << ": " << v.reason;
  }
}

// The matmul testbed's kernel is a template in a header; a candidate keeps its template parameters.
TEST(KernelSource, TheMatmulTestbedsTemplateKernelAndItsCandidate) {
  const auto s = parse_kernel_file(test::source_dir() / "examples/matmul/sgemm_tiled.hpp");
  const auto* k = s.find("sgemm_tiled");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->template_parameters, "template <int BM, int BN, int BK, int TM, int TN>");
  const auto v = check_source_guards(s, *k, parse_kernel_source(s.path, splice_definition(s, *k, read_file(fixture("sgemm_vector_loads.cu")))));
  EXPECT_TRUE(v.passed()) << v.guard << ": " << v.reason;
}

TEST_F(Guards, AChangedSignatureIsRefused) {
  auto v = with_definition(replaced("const float* in", "const double* in"));
  EXPECT_EQ(v.guard, "signature");
  EXPECT_NE(v.reason.find("const double *"), std::string::npos) << v.reason;
  v = with_definition(replaced("int cols)", "int cols, int extra)"));
  EXPECT_EQ(v.guard, "signature");
  v = with_definition(replaced("softmax_naive", "softmax_fast"));
  EXPECT_EQ(v.guard, "unchanged_rest") << v.reason;  // another kernel, and the original's gone
  v = with_definition("__device__ float only_a_helper(float v) { return v; }\n");
  EXPECT_EQ(v.guard, "signature");
  EXPECT_NE(v.reason.find("no definition of the kernel softmax_naive"), std::string::npos) << v.reason;
}

TEST_F(Guards, AChangedTemplateIsRefused) {
  const auto s = parse_kernel_file(fixture("unroll_corpus.cu"));
  const auto* k = s.find("templated");
  std::string d = s.text.substr(k->definition.begin, k->definition.end - k->definition.begin);
  d.replace(d.find("int TILE"), 8, "long TILE");
  const auto v = check_source_guards(s, *k, parse_kernel_source(s.path, splice_definition(s, *k, d)));
  EXPECT_EQ(v.guard, "signature");
  EXPECT_NE(v.reason.find("template <long TILE, typename T>"), std::string::npos) << v.reason;
}

TEST_F(Guards, AnythingElseAddedOrEditedIsRefused) {
  auto v = with_definition("int host_helper() { return 1; }\n" + definition_);
  EXPECT_EQ(v.guard, "unchanged_rest");
  EXPECT_NE(v.reason.find("host_helper, which is not a __device__ function"), std::string::npos) << v.reason;
  v = with_definition("#define expf __expf\n" + definition_);
  EXPECT_EQ(v.guard, "unchanged_rest");
  EXPECT_NE(v.reason.find("#define expf __expf"), std::string::npos) << v.reason;
  v = with_definition("__device__ int counter;\n" + definition_);
  EXPECT_EQ(v.guard, "unchanged_rest");
  v = with_definition(definition_ + "\n__global__ void second(float* p) { p[0] = 1; }\n");
  EXPECT_EQ(v.guard, "unchanged_rest");
  // The host code edited: the rest of the file is not the original's.
  std::string edited = splice_definition(source_, *kernel_, definition_);
  edited.replace(edited.find("ROWS, COLS and LAUNCHES"), 4, "rows");
  v = check_source_guards(source_, *kernel_, parse_kernel_source(source_.path, edited));
  EXPECT_EQ(v.guard, "unchanged_rest");
}

TEST(FencedCodeBlock, TheOneBlockOrTheOneThatDefinesTheKernel) {
  std::string why;
  EXPECT_EQ(fenced_code_block("Here:\n```cuda\n__global__ void k() {}\n```\nDone.", "k", why), "__global__ void k() {}\n");
  EXPECT_EQ(fenced_code_block("```\nint a;\n```\nand\n```cpp\n__global__ void k(int) {}\n```", "k", why),
            "__global__ void k(int) {}\n");
  EXPECT_FALSE(fenced_code_block("I cannot help with that.", "k", why));
  EXPECT_EQ(why, "no fenced code block in the answer");
  EXPECT_FALSE(fenced_code_block("```\n__global__ void k() {}\n```\n```\n__global__ void k() {}\n```", "k", why));
  EXPECT_NE(why.find("2 code blocks, 2 of them defining k"), std::string::npos) << why;
  EXPECT_FALSE(fenced_code_block("```cuda\n__global__ void k() {", "k", why));
  EXPECT_EQ(why, "a code block that is never closed");
}

}  // namespace
}  // namespace rpl::optimize
