// A candidate specialised to the oracle's shape: the parameters a kernel reads (libclang's AST,
// tests/fixtures/optimize/parameter_corpus.cu), the ignores_parameter guard, and how many input
// shapes the oracles hold.
#include <cstring>

#include <gtest/gtest.h>

#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/optimize/guards.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/oracle.hpp>
#include <rpl/optimize/source_edits.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

fs::path fixture(const std::string& name) { return test::source_dir() / "tests/fixtures/optimize" / name; }

std::string read_parameters(const KernelDefinition& k) {
  std::string out;
  for (const auto& p : k.parameters) {
    if (p.read) out += (out.empty() ? "" : " ") + p.name;
  }
  return out;
}

TEST(ParameterReads, EachKernelOfTheCorpusReadsWhatItsCommentSays) {
  const auto s = parse_kernel_file(fixture("parameter_corpus.cu"));
  ASSERT_EQ(s.kernels.size(), 17u);
  for (const auto& k : s.kernels) {
    size_t at = 0;
    for (unsigned l = 1; l < k.line; ++l) at = s.text.find('\n', at) + 1;
    const std::string line = s.text.substr(at, s.text.find('\n', at) - at);
    const auto comment = line.find("// reads: ");
    ASSERT_NE(comment, std::string::npos) << k.name;
    EXPECT_EQ(read_parameters(k), line.substr(comment + 10)) << k.name;
  }
}

TEST(ParameterReads, NamesTypesAndWhereEachNameIs) {
  const auto s = parse_kernel_file(test::source_dir() / "examples/softmax/softmax_testbed.cu");
  const auto& k = s.kernels.at(0);
  ASSERT_EQ(k.parameters.size(), 4u);
  EXPECT_EQ(read_parameters(k), "in out rows cols");
  EXPECT_TRUE(k.parameters[0].pointer);
  EXPECT_FALSE(k.parameters[3].pointer);
  for (const auto& p : k.parameters) EXPECT_EQ(s.text.substr(p.name_offset, p.name.size()), p.name);
  EXPECT_EQ(s.text.substr(k.name_offset, k.name.size()), "softmax_naive");
  EXPECT_EQ(k.launch_bounds, "");
}

// The softmax testbed's kernel against a definition that no longer reads cols.
class IgnoredParameter : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = parse_kernel_file(test::source_dir() / "examples/softmax/softmax_testbed.cu");
    kernel_ = &source_.kernels.at(0);
  }
  const KernelDefinition& candidate(const std::string& file) {
    parsed_ = parse_kernel_source(source_.path, splice_definition(source_, *kernel_, read_file(fixture(file))));
    return *parsed_.find("softmax_naive");
  }
  GuardVerdict read_guard(const std::string& file, const std::set<std::string>& allowed = {}) {
    candidate(file);
    return check_parameters_read(source_, *kernel_, parsed_, allowed);
  }
  KernelSource source_, parsed_;
  const KernelDefinition* kernel_ = nullptr;
};

TEST_F(IgnoredParameter, AFixedRowLengthIsRefusedNamingTheParameter) {
  const auto v = read_guard("softmax_fixed_cols.cu");
  EXPECT_TRUE(check_source_guards(source_, *kernel_, parsed_).passed());
  EXPECT_EQ(v.guard, "ignores_parameter");
  EXPECT_NE(v.reason.find("the parameter cols"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("--allow-unused-param cols"), std::string::npos) << v.reason;
  EXPECT_TRUE(read_guard("softmax_fixed_cols.cu", {"cols"}).passed());
  EXPECT_EQ(read_guard("softmax_fixed_cols.cu", {"rows"}).guard, "ignores_parameter");
}

TEST_F(IgnoredParameter, TheGeneralCandidatesReadEveryParameter) {
  for (const char* file : {"softmax_warp.cu", "softmax_warp_vectors.cu", "softmax_row_registers.cu", "softmax_shared_race.cu"}) {
    EXPECT_TRUE(read_guard(file).passed()) << file << ": " << read_parameters(*parsed_.find("softmax_naive"));
  }
}

// The wrong answers the gpu tests' stand-in model gives: all but the empty one read every parameter.
TEST_F(IgnoredParameter, TheStandInModelsWrongAnswers) {
  for (const char* file : {"softmax_no_max.cu", "softmax_forever.cu", "softmax_out_of_bounds.cu"}) {
    EXPECT_TRUE(read_guard(file).passed()) << file << ": " << read_parameters(*parsed_.find("softmax_naive"));
  }
  const auto v = read_guard("softmax_empty.cu");
  EXPECT_EQ(v.guard, "ignores_parameter");
  EXPECT_NE(v.reason.find("the parameters in, out, rows, cols"), std::string::npos) << v.reason;
  // It does not read cols, nor does it build: the session asks this guard only of a candidate that
  // built, so that the compiler's errors go back to the model for a repair.
  EXPECT_EQ(read_guard("softmax_compile_error.cu").guard, "ignores_parameter");
}

TEST_F(IgnoredParameter, ARenamedParameterIsStillTheSameOne) {
  std::string d = source_.text.substr(kernel_->definition.begin, kernel_->definition.end - kernel_->definition.begin);
  for (size_t at; (at = d.find("cols")) != std::string::npos;) d.replace(at, 4, "width");
  parsed_ = parse_kernel_source(source_.path, splice_definition(source_, *kernel_, d));
  EXPECT_TRUE(check_parameters_read(source_, *kernel_, parsed_, {}).passed());
}

// Two snapshots of the same launch: one shape; another row length in the second: two.
TEST(OracleShapes, ScalarArgumentsGridAndBlockMakeAShapePointersDoNot) {
  const auto dir = test::fresh_dir("oracle-shapes");
  const std::vector<bool> pointer = {true, true, false};  // scale(float*, float const*, int)
  auto write_args = [](const fs::path& d, uint64_t a, uint64_t b, int32_t n) {
    std::string kernarg(20, '\0');
    std::memcpy(kernarg.data(), &a, 8);
    std::memcpy(kernarg.data() + 8, &b, 8);
    std::memcpy(kernarg.data() + 16, &n, 4);
    write_output_file(d / "kernarg.bin", kernarg);
    return isolate::read_snapshot(d);
  };
  const auto one = write_args(test::write_test_snapshot(dir / "one"), 0x7f0000200000, 0x7f0000000000, 4);
  const auto moved = write_args(test::write_test_snapshot(dir / "moved"), 0x7f0000300000, 0x7f0000100000, 4);
  const auto wider = write_args(test::write_test_snapshot(dir / "wider"), 0x7f0000200000, 0x7f0000000000, 8);
  EXPECT_EQ(input_shapes({one, moved}, pointer), 1u);
  EXPECT_EQ(input_shapes({one, wider}, pointer), 2u);
  EXPECT_EQ(input_shapes({one, moved, wider}, pointer), 2u);
  EXPECT_EQ(input_shapes({one, moved}, {false, false, false}), 2u) << "pointers taken as values differ";
}

}  // namespace
}  // namespace rpl::optimize
