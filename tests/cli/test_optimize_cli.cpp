// rocm-perf optimize refuses bad input with one line and exit 2 before it builds or runs anything
// (the loop itself needs a GPU: tests/gpu/test_optimize_gpu.cpp), and Ctrl-C leaves the source as it was.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include <rpl/core/files.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

const fs::path kSoftmax = source_dir() / "examples/softmax/softmax_testbed.cu";

CliResult optimize(const fs::path& source, const std::string& build, const std::vector<std::string>& extra,
                   const std::vector<std::string>& program) {
  std::vector<std::string> args = {"optimize", "--source", source.string(), "--build", build,
                                   "--out", (fresh_dir("optimize-out") / "out").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  return run_cli(args);
}

void expect_refused(const CliResult& r, const std::string& says) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(CliOptimize, ASourceWithoutAKernelIsRefused) {
  const auto dir = fresh_dir("optimize-nokernel");
  std::ofstream(dir / "host.cu") << "int main() { return 0; }\n";
  expect_refused(optimize(dir / "host.cu", "nvcc {SOURCE} -o {BINARY}", {}, {"{BINARY}"}), "defines no __global__ kernel");
}

TEST(CliOptimize, ABuildTemplateNeedsBothPlaceholders) {
  expect_refused(optimize(kSoftmax, "nvcc -O3 {SOURCE}", {}, {"{BINARY}"}), "has no {BINARY}");
  expect_refused(optimize(kSoftmax, "nvcc -O3 -o {BINARY} k.cu", {}, {"{BINARY}"}), "has no {SOURCE}");
}

TEST(CliOptimize, TheProgramMustRunTheBuiltBinary) {
  expect_refused(optimize(kSoftmax, "nvcc {SOURCE} -o {BINARY}", {}, {"./softmax_testbed", "64"}), "does not name {BINARY}");
}

TEST(CliOptimize, AnUnreachableModelServerIsRefusedBeforeAnythingRuns) {
  // Port 1 on this machine: nothing listens there.
  expect_refused(optimize(kSoftmax, "nvcc {SOURCE} -o {BINARY}", {"--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m"}, {"{BINARY}"}),
                 "the server cannot be reached");
}

TEST(CliOptimize, AnUnusedParameterAllowedMustBeOneOfTheKernels) {
  expect_refused(optimize(kSoftmax, "nvcc {SOURCE} -o {BINARY}", {"--allow-unused-param", "col"}, {"{BINARY}"}),
                 "--allow-unused-param col: no kernel in " + kSoftmax.string() + " has a parameter of that name (they have in, out, rows, cols)");
}

TEST(CliOptimize, AMissingCandidateFileIsRefused) {
  expect_refused(optimize(kSoftmax, "nvcc {SOURCE} -o {BINARY}", {"--candidate", "/nonexistent/new.cu"}, {"{BINARY}"}),
                 "/nonexistent/new.cu");
}

TEST(CliOptimize, ABuildThatDiffersEachTimeIsRefusedNamingTheMacro) {
  const fs::path fixtures = source_dir() / "tests/fixtures/optimize";
  const auto r = optimize(fixtures / "stamped_kernel.cu", "python3 " + (fixtures / "time_stamping_compiler.py").string() + " {SOURCE} {BINARY}",
                          {}, {"{BINARY}"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // After the line saying what it does: the refusal, naming the macro and its line.
  EXPECT_NE(r.err.find("\nrocm-perf: error: two builds of the untouched source differ"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the source uses __TIME__ (line 2)"), std::string::npos) << r.err;
}

// As root every file is writable, so the tool runs as nobody where the tests run as root.
TEST(CliOptimize, ApplyOnAReadOnlySourceIsRefusedAndTheFileKept) {
  TempDir dir("rpl-optimize-ro-");
  const fs::path source = dir.path() / "softmax_testbed.cu";
  fs::copy_file(kSoftmax, source);
  const auto open = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(source, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir.path(), open);
  const auto before = read_text(source);
  const auto r = run_cli_unprivileged({"optimize", "--apply", "--source", source.string(), "--build", "nvcc {SOURCE} -o {BINARY}",
                                       "--out", (dir.path() / "out").string(), "--", "{BINARY}"});
  expect_refused(r, "--apply");
  EXPECT_EQ(read_text(source), before);
  EXPECT_FALSE(fs::exists(dir.path() / "out"));
}

// Ctrl-C while the original builds, with --apply: exit 1 saying so, the build's whole process
// group gone, and the user's source byte-identical.
TEST(CliOptimize, CtrlCLeavesTheSourceAsItWas) {
  const auto dir = fresh_dir("optimize-interrupted");
  const fs::path source = dir / "softmax_testbed.cu";
  fs::copy_file(kSoftmax, source);
  const auto before = read_text(source);
  const auto out = dir / "out";
  const int pid = start_cli({"optimize", "--apply", "--source", source.string(), "--out", out.string(), "--build",
                             "sh -c 'echo $$ > \"$0.pid.tmp\"; mv \"$0.pid.tmp\" \"$0.pid\"; exec sleep 60' {SOURCE} {BINARY}",
                             "--", "{BINARY}"},
                            dir / "stderr");
  ASSERT_GT(pid, 0);
  const auto pid_file = out / "work/baseline/a/softmax_testbed.cu.pid";
  for (int i = 0; i < 500 && !fs::exists(pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(pid_file));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_cli(pid), 1);
  const std::string err = read_text(dir / "stderr");
  EXPECT_NE(err.find("rocm-perf: error: interrupted; " + source.string() + " is as it was\n"), std::string::npos) << err;
  int build = 0;
  std::ifstream(pid_file) >> build;
  ASSERT_GT(build, 0);
  EXPECT_TRUE(process_gone(build)) << "the build survived Ctrl-C";
  EXPECT_EQ(read_text(source), before);
}

}  // namespace
}  // namespace rpl::test
