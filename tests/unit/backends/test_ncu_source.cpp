// ncu's source view, as recorded on an H100 for a Triton kernel (tests/fixtures/ncu_source_triton_add_*.csv):
// the same profile printed with source lines and SASS (cuda,sass) and with SASS alone.
#include <numeric>

#include <gtest/gtest.h>

#include <rpl/analysis/stalls.hpp>
#include <rpl/backends/ncu_source.hpp>
#include <rpl/core/error.hpp>

#include "test_support.hpp"

namespace rpl::backends {
namespace {

std::vector<trace::SourceView> fixture(const char* name) {
  return read_ncu_source(test::source_dir() / "tests/fixtures" / name);
}

int64_t total_samples(const trace::SourceView& v) {
  return std::accumulate(v.instructions.begin(), v.instructions.end(), int64_t{0},
                         [](int64_t sum, const auto& i) { return sum + i.samples; });
}

TEST(NcuSource, LinesAndInstructions) {
  const auto views = fixture("ncu_source_triton_add_cuda_sass.csv");
  ASSERT_EQ(views.size(), 1u);
  const auto& v = views[0];
  EXPECT_EQ(v.function, "add_kernel");
  EXPECT_TRUE(v.file.ends_with("tests/gpu/programs/triton_add.py")) << v.file;
  ASSERT_EQ(v.lines.size(), 4u);
  EXPECT_EQ(v.lines[0].line, 8);
  EXPECT_EQ(v.lines[3].line, 11);
  EXPECT_EQ(v.lines[3].samples, 5468);
  EXPECT_EQ(v.lines[3].not_issued_samples, 5165);
  EXPECT_TRUE(v.lines[3].text.starts_with("tl.store(out_ptr + offsets")) << v.lines[3].text;
  // Every instruction row of the view, each under its line; a line's samples are its instructions'.
  int64_t line11 = 0;
  for (const auto& i : v.instructions) {
    ASSERT_TRUE(i.line.has_value()) << i.sass;
    if (*i.line == 11) line11 += i.samples;
  }
  EXPECT_EQ(line11, 5468);
  EXPECT_EQ(v.instructions.front().address, 0x7fce377ae300u);
  EXPECT_EQ(v.instructions.front().sass, "LDC R1, c[0x0][0x28]");
  EXPECT_EQ(v.instructions.front().executed, 65536);
}

TEST(NcuSource, SassAloneHasTheSameInstructions) {
  const auto with_lines = fixture("ncu_source_triton_add_cuda_sass.csv");
  const auto sass = fixture("ncu_source_triton_add_sass.csv");
  ASSERT_EQ(sass.size(), 1u);
  EXPECT_EQ(sass[0].function, "add_kernel");
  EXPECT_TRUE(sass[0].lines.empty());
  EXPECT_EQ(total_samples(sass[0]), total_samples(with_lines[0]));
  EXPECT_EQ(total_samples(sass[0]), 8 + 581 + 36 + 5468);
  for (const auto& i : sass[0].instructions) EXPECT_FALSE(i.line.has_value());
}

TEST(NcuSource, HotSpotsOfTheKernel) {
  analysis::StallAnalysis s;
  s.kernel = "add_kernel";
  ASSERT_TRUE(analysis::add_source_hot_spots(s, fixture("ncu_source_triton_add_cuda_sass.csv")));
  ASSERT_EQ(s.hot_lines.size(), 4u);
  EXPECT_EQ(s.hot_lines[0].line, 11);
  EXPECT_NEAR(s.hot_lines[0].share, 5468.0 / 6093, 1e-9);
  EXPECT_EQ(s.hot_lines[1].line, 9);
  ASSERT_EQ(s.hot.size(), 10u);
  for (size_t i = 1; i < s.hot.size(); ++i) EXPECT_GE(s.hot[i - 1].stall, s.hot[i].stall);
  EXPECT_TRUE(s.hot[0].source.ends_with("triton_add.py:11")) << s.hot[0].source;
  EXPECT_FALSE(s.hot[0].reason.empty());
  EXPECT_LT(s.hot[0].vaddr, 0x1000u) << "an offset in the kernel, not the loaded address";
  // Several views and none of this kernel: nothing is changed.
  auto views = fixture("ncu_source_triton_add_sass.csv");
  views.push_back(views[0]);
  views[0].function = views[1].function = "other_kernel(int)";
  analysis::StallAnalysis other;
  other.kernel = "add_kernel";
  EXPECT_FALSE(analysis::add_source_hot_spots(other, views));
  EXPECT_TRUE(other.hot.empty());
}

TEST(NcuSource, NotASourceView) {
  const auto dir = test::fresh_dir("ncu_source_bad");
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { parse_ncu_source_csv("", "empty.csv"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("empty.csv: not an ncu source view"), std::string::npos) << message;
  // ncu's details page, and a view whose rows were cut off after the header.
  EXPECT_EQ(test::error_code_of([&] { parse_ncu_source_csv("\"ID\",\"Process ID\"\n\"0\",\"482\"\n", "details.csv"); }),
            Errc::bad_input);
  EXPECT_EQ(test::error_code_of([&] { parse_ncu_source_csv("\"Kernel Name\",\"k\",\n\"Address\",\"Source\"\n", "cut.csv"); }),
            Errc::bad_input);
  EXPECT_EQ(test::error_code_of([&] { read_ncu_source(dir); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("not a file"), std::string::npos) << message;
}

// The source pass of profile --deep, against stand-in ncu's: one that profiles nothing (no launch
// matched) and one that the driver refuses the counters.
TEST(NcuSource, PassThatProfiledNoKernelSaysSo) {
  RunOptions run;
  run.command = {"/bin/true"};
  test::PathPrepended fake(test::source_dir() / "tests/fixtures/fake_ncu_no_kernel");
  const auto dir = test::fresh_dir("source_pass_none");
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { collect_ncu_source(run, {"^softmax$", false}, dir); }, &message), Errc::run_failed);
  EXPECT_NE(message.find("ncu profiled no launch of a kernel matching ^softmax$"), std::string::npos) << message;
  EXPECT_NE(message.find((dir / "ncu_source_run.log").string()), std::string::npos) << message;
}

TEST(NcuSource, KernelWithoutLineInfoFallsBackToTheSassView) {
  RunOptions run;
  run.command = {"/bin/true"};
  test::PathPrepended fake(test::source_dir() / "tests/fixtures/fake_ncu_no_lineinfo");
  const auto view = collect_ncu_source(run, {"^add_kernel$", false}, test::fresh_dir("source_pass_sass"));
  const auto views = read_ncu_source(view);
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].instructions.size(), fixture("ncu_source_triton_add_sass.csv")[0].instructions.size());
}

TEST(NcuSource, PassWithoutCounterPermissionIsAMissingTool) {
  RunOptions run;
  run.command = {"/bin/true"};
  test::PathPrepended fake(test::source_dir() / "tests/fixtures/fake_ncu");
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { collect_ncu_source(run, {"^softmax$", false}, test::fresh_dir("source_pass_perm")); },
                                &message),
            Errc::missing_tool);
  EXPECT_NE(message.find("source pass: ncu may not read this GPU's performance counters"), std::string::npos) << message;
}

}  // namespace
}  // namespace rpl::backends
