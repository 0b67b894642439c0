#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

#include "test_support.hpp"

namespace rpl {
namespace {

TEST(Subprocess, CapturesOutputAndExitStatus) {
  ProcessOptions p;
  p.argv = {"/bin/sh", "-c", "echo hello; echo oops >&2; exit 3"};
  p.capture_output = true;
  ProcessResult r = run_process(p);
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output, "hello\noops\n");
  EXPECT_EQ(r.describe(), "exited with status 3");
}

TEST(Subprocess, ArgumentsReachTheProgramUnchangedWithoutAShell) {
  ProcessOptions p;
  // Shell metacharacters must arrive as plain text.
  p.argv = {"/usr/bin/printf", "%s|", "a b", "$(touch /tmp/rpl-should-not-exist)", ";rm -rf /", "*"};
  p.capture_output = true;
  ProcessResult r = run_process(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.output, "a b|$(touch /tmp/rpl-should-not-exist)|;rm -rf /|*|");
  EXPECT_FALSE(std::filesystem::exists("/tmp/rpl-should-not-exist"));
}

TEST(Subprocess, TimeoutKillsTheWholeProcessGroup) {
  const auto dir = test::fresh_dir("timeout");
  const auto pid_file = dir / "grandchild.pid";
  ProcessOptions p;
  // The child starts a grandchild in the background and records its pid, then both sleep.
  p.argv = {"/bin/sh", "-c", "sleep 60 & echo $! > \"$1\"; sleep 60", "sh", pid_file.string()};
  p.timeout = std::chrono::duration<double>(0.5);
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = run_process(p);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(elapsed, 10.0);
  EXPECT_NE(r.describe(0.5).find("timed out after 0.5 s"), std::string::npos);
  pid_t grandchild = 0;
  std::ifstream(pid_file) >> grandchild;
  ASSERT_GT(grandchild, 0);
  // The grandchild was in the same group: it must be gone (allow a moment for the reaper).
  EXPECT_TRUE(test::process_gone(grandchild)) << "grandchild " << grandchild << " survived the timeout";
}

TEST(Subprocess, ReportsKillingSignal) {
  ProcessOptions p;
  p.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  ProcessResult r = run_process(p);
  EXPECT_EQ(r.term_signal, SIGSEGV);
  EXPECT_NE(r.describe().find("killed by signal 11"), std::string::npos);
}

TEST(Subprocess, MissingProgramIsAMissingTool) {
  ProcessOptions p;
  p.argv = {"rpl-no-such-program-anywhere"};
  try {
    run_process(p);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::missing_tool);
    EXPECT_NE(std::string(e.what()).find("rpl-no-such-program-anywhere: command not found"), std::string::npos);
  }
}

TEST(Subprocess, SeparateErrorFile) {
  const auto dir = test::fresh_dir("errfile");
  ProcessOptions p;
  p.argv = {"/bin/sh", "-c", "echo out; echo err >&2"};
  p.output_file = dir / "out";
  p.error_file = dir / "err";
  ASSERT_TRUE(run_process(p).ok());
  EXPECT_EQ(test::read_text(dir / "out"), "out\n");
  EXPECT_EQ(test::read_text(dir / "err"), "err\n");
}

TEST(Subprocess, ExtraEnvironmentReachesTheChild) {
  ProcessOptions p;
  p.argv = {"/bin/sh", "-c", "printf %s \"$RPL_TEST_VALUE\""};
  p.extra_env = {{"RPL_TEST_VALUE", "x y"}};
  p.capture_output = true;
  EXPECT_EQ(run_process(p).output, "x y");
}

TEST(Subprocess, DisplayCommandQuotesWhatAShellWouldSplit) {
  EXPECT_EQ(display_command({"./app", "a b", "it's", "--n=3"}), "./app 'a b' 'it'\\''s' --n=3");
}

// The Slurm watchdog's start: when spawn_detached returns, the helper already has a session of its
// own, so killing the group that started it (as run_process does after its child exits) cannot
// reach it.
TEST(Subprocess, ADetachedHelperHasItsOwnSessionFromTheStart) {
  const int pid = spawn_detached({"sleep", "30"});
  ASSERT_GT(pid, 0);
  EXPECT_EQ(::getsid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgrp());
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_EQ(test::error_code_of([] { spawn_detached({"rpl-no-such-program"}); }), Errc::missing_tool);
}

}  // namespace
}  // namespace rpl
