// autotune --launcher slurm against a real Slurm started on this machine (tests/slurm/local_slurm.sh:
// two nodes, two CPUs and two GPUs each; node2 does not see the folder the tests hide from it), with
// the stand-in tunable program (tests/fixtures/synthetic_tunable.cpp), whose printed figure is
// exact: a Slurm run must measure what a local run measures.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/subprocess.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

class SlurmAutotune : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!find_executable("slurmctld", {"/usr/sbin"}) || !find_executable("munged", {"/usr/sbin"})) {
      skip_reason_ = "Slurm is not installed: tests/slurm/local_slurm.sh needs slurm-wlm and munge (scripts/setup.sh)";
      return;
    }
    dir_ = fresh_dir("slurm-autotune");
    ProcessOptions p;
    p.argv = {"bash", (source_dir() / "tests/slurm/local_slurm.sh").string(), "start", (dir_ / "slurm").string()};
    // Ports below the ephemeral ones (32768 and up), which clients take.
    p.extra_env = {{"RPL_SLURM_PORT", std::to_string(20000 + (::getpid() % 4000) * 3)}, {"RPL_SLURM_HIDE", hidden().string()}};
    p.capture_output = true;
    const auto r = run_process(p);
    if (!r.ok()) {
      start_error_ = "tests/slurm/local_slurm.sh start failed: " + r.output;
      return;
    }
    env_ = {{"SLURM_CONF", (dir_ / "slurm/slurm.conf").string()}};
  }
  static void TearDownTestSuite() {
    if (dir_.empty()) return;
    ProcessOptions p;
    p.argv = {"bash", (source_dir() / "tests/slurm/local_slurm.sh").string(), "stop", (dir_ / "slurm").string()};
    p.capture_output = true;
    run_process(p);
  }
  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_EQ(start_error_, "");
  }
  void TearDown() override {
    if (env_.empty()) return;
    slurm({"scancel", "-u", "root"});  // whatever a failed test left
  }

  static fs::path hidden() { return dir_ / "hidden"; }
  // Whether node2 sees hidden() (made here), which local_slurm.sh hides from it where it may.
  static bool node2_sees_hidden() {
    fs::create_directories(hidden());
    std::ofstream(hidden() / "only-here") << "x";
    return slurm({"srun", "-w", "node2", "ls", hidden().string()}).find("only-here") != std::string::npos;
  }
  static std::string slurm(std::vector<std::string> argv) {
    ProcessOptions p;
    p.argv = std::move(argv);
    p.extra_env = env_;
    p.capture_output = true;
    return run_process(p).output;
  }
  // The queue's jobs, or its steps with steps set; empty when nothing runs.
  static std::string queue(bool steps = false) {
    return slurm(steps ? std::vector<std::string>{"squeue", "-h", "-s", "-o", "%i"} : std::vector<std::string>{"squeue", "-h"});
  }
  // The queue's jobs that are not yet ended: a cancelled job stays COMPLETING while its nodes
  // stop its processes, which takes seconds on a slow machine.
  static std::string live_jobs() {
    std::istringstream lines(slurm({"squeue", "-h", "-o", "%i %T"}));
    std::string out;
    for (std::string line; std::getline(lines, line);) {
      if (line.find(" COMPLETING") == std::string::npos) out += line + "\n";
    }
    return out;
  }
  static bool queue_empties() {
    for (int i = 0; i < 100; ++i) {
      if (queue().empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  static std::vector<std::pair<std::string, std::string>> env_with(std::vector<std::pair<std::string, std::string>> more) {
    more.insert(more.end(), env_.begin(), env_.end());
    return more;
  }

  // A tune in the background whose every run logs to log and then sleeps sleep_ms; its pid.
  static int start_slow_tune(const fs::path& dir, const fs::path& log, const std::vector<std::string>& args, const char* sleep_ms) {
    return start_cli(args, dir / "err.txt", env_with({{"SYNTH_LOG", log.string()}, {"SYNTH_SLEEP_MS", sleep_ms}}));
  }
  // The first step that runs a program: not the probe, which is over once the program's log has a
  // line. Empty when none came within six seconds.
  static std::string first_program_step(const fs::path& log) {
    std::string step;
    for (int i = 0; i < 300 && step.empty(); ++i) {
      if (fs::exists(log)) {
        std::istringstream ids(queue(true));
        ids >> step;
      }
      if (step.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return step;
  }
  // Runs args as a slow tune (its runs logged to dir/runs.log), has Slurm end its first program
  // step, and reads the autotune.json of dir/out once the tune has finished with exit 0.
  static void tune_with_first_step_ended(const fs::path& dir, const std::vector<std::string>& args, nlohmann::json& doc) {
    const int pid = start_slow_tune(dir, dir / "runs.log", args, "400");
    ASSERT_GT(pid, 0);
    const std::string step = first_program_step(dir / "runs.log");
    ASSERT_FALSE(step.empty()) << read_text(dir / "err.txt");
    slurm({"scancel", step});
    ASSERT_EQ(wait_cli(pid), 0) << read_text(dir / "err.txt");
    doc = nlohmann::json::parse(read_text(dir / "out/autotune.json"));
  }

  static inline fs::path dir_;
  static inline std::string skip_reason_, start_error_;
  static inline std::vector<std::pair<std::string, std::string>> env_;
};

std::vector<std::string> tune_args(const fs::path& out, std::vector<std::string> extra) {
  std::vector<std::string> args{"autotune", "--space", (source_dir() / "tests/fixtures/autotune/synthetic_space.json").string(),
                                "--cmd-template",
                                (build_dir() / "fixtures/rpl-synthetic-tunable").string() + " --a {A} --b {B} --c {C} --mode {MODE}",
                                "--metric-regex", "time_ms: ([0-9.]+)", "--min-samples", "1", "--timeout", "5",
                                "--device-name", "test device", "--seed-fraction", "0.02", "--budget", "40", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> on_slurm(std::vector<std::string> extra) {
  std::vector<std::string> args{"--launcher", "slurm", "--slurm-workers", "2", "--slurm-args", "--nodes=2"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The configurations a --csv file lists ("A B C MODE"), with their failure and value.
std::map<std::string, std::string> measured(const fs::path& csv) {
  std::map<std::string, std::string> out;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // order,phase,cached,A,B,C,MODE,failure,value,...
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; cells.size() < 9 && std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() < 9) continue;
    out[cells[3] + " " + cells[4] + " " + cells[5] + " " + cells[6]] = cells[7] + " " + cells[8];
  }
  return out;
}

// The best configuration a local run of tune_args finds: what every Slurm run must find too.
std::string local_best() {
  static const std::string best = [] {
    const auto dir = fresh_dir("slurm-local-best");
    auto r = run_cli(tune_args(dir / "out", {"--json"}));
    return r.exit_code == 0 ? nlohmann::json::parse(r.out)["best"]["configuration"].dump() : "local run failed: " + r.err;
  }();
  return best;
}

int lines_in(const fs::path& file) { return count_lines(read_text(file)); }

TEST_F(SlurmAutotune, MeasuresWhatALocalRunMeasuresAndSaysWhereItRan) {
  const auto dir = fresh_dir("slurm-same");
  auto local = run_cli(tune_args(dir / "local", {"--json", "--csv", (dir / "local.csv").string()}));
  ASSERT_EQ(local.exit_code, 0) << local.err;
  auto remote = run_cli(tune_args(dir / "slurm", on_slurm({"--json", "--csv", (dir / "slurm.csv").string()})), env_);
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(schema_errors(remote.out, "autotune"), "");
  const auto a = nlohmann::json::parse(local.out), b = nlohmann::json::parse(remote.out);
  EXPECT_EQ(a["best"], b["best"]);
  EXPECT_EQ(a["top"], b["top"]);
  EXPECT_EQ(a["failures"], b["failures"]);
  EXPECT_EQ(measured(dir / "local.csv"), measured(dir / "slurm.csv"));
  EXPECT_EQ(a["launcher"]["kind"], "local");
  const auto& l = b["launcher"];
  EXPECT_EQ(l["kind"], "slurm");
  EXPECT_EQ(l["nodes"].dump(), R"(["node1","node2"])");
  EXPECT_EQ(l["workers"], 2);
  EXPECT_EQ(l["steps_ended_by_slurm"], 0);
  // One step per run: the measurements and the re-measurements of the best two.
  EXPECT_EQ(l["steps"].get<int>(), b["measured"]["total"].get<int>() + b["measured"]["remeasurements"].get<int>());
  EXPECT_TRUE(queue_empties()) << queue();
}

// A build template: each distinct build a step of its own (without GPUs), or on the controller
// with --build-where local; the same measurements either way.
TEST_F(SlurmAutotune, BuildsRunAsStepsOrHere) {
  const auto dir = fresh_dir("slurm-builds");
  const std::string synthetic = (build_dir() / "fixtures/rpl-synthetic-tunable").string();
  auto args = [&](const std::string& out, std::vector<std::string> extra) {
    auto a = tune_args(dir / out, on_slurm(std::move(extra)));
    a[4] = "{BUILD_DIR}/tunable-{MODE} --a {A} --b {B} --c {C} --mode {MODE}";  // --cmd-template
    a.insert(a.end(), {"--build-template", "cp " + synthetic + " {BUILD_DIR}/tunable-{MODE}"});
    return a;
  };
  auto steps = run_cli(args("steps", {"--json"}), env_);
  ASSERT_EQ(steps.exit_code, 0) << steps.err;
  EXPECT_EQ(schema_errors(steps.out, "autotune"), "");
  auto here = run_cli(args("here", {"--json", "--build-where", "local"}), env_);
  ASSERT_EQ(here.exit_code, 0) << here.err;
  const auto a = nlohmann::json::parse(steps.out), b = nlohmann::json::parse(here.out);
  EXPECT_EQ(a["best"]["configuration"].dump(), local_best());
  EXPECT_EQ(a["best"], b["best"]);
  const int runs = a["measured"]["total"].get<int>() + a["measured"]["remeasurements"].get<int>();
  EXPECT_EQ(a["launcher"]["builds"], "step");
  EXPECT_EQ(a["launcher"]["steps"], runs + 2);  // and a build for each MODE
  EXPECT_EQ(b["launcher"]["builds"], "local");
  EXPECT_EQ(b["launcher"]["steps"], runs);
}

// profile of a job that srun starts: both ranks run, on both nodes, and their output is kept.
TEST_F(SlurmAutotune, ProfileRunsAJobThatSrunStarts) {
  const auto dir = fresh_dir("slurm-profile");
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "1", "--out", (dir / "p").string(), "--", "srun", "-N2", "-n2", "bash",
                    "-c", "echo rank $SLURM_PROCID on $SLURMD_NODENAME"},
                   env_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto log = read_text(dir / "p/.rocpd_profile/run1.log");
  EXPECT_NE(log.find("rank 0 on node1"), std::string::npos) << log;
  EXPECT_NE(log.find("rank 1 on node2"), std::string::npos) << log;
}

TEST_F(SlurmAutotune, AStepSlurmEndsIsTriedAgainAndRecorded) {
  const auto dir = fresh_dir("slurm-retry");
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(tune_with_first_step_ended(dir, tune_args(dir / "out", on_slurm({"--json"})), doc));
  EXPECT_EQ(doc["launcher"]["steps_ended_by_slurm"], 1);
  EXPECT_EQ(doc["failures"]["node_failed"], 0);
  EXPECT_EQ(doc["best"]["configuration"].dump(), local_best());
  EXPECT_EQ(doc["launcher"]["steps"].get<int>(), doc["measured"]["total"].get<int>() + doc["measured"]["remeasurements"].get<int>() + 1);
}

TEST_F(SlurmAutotune, AStepEndedPastItsRetriesIsNodeFailedAndMeasuredAgainLater) {
  const auto dir = fresh_dir("slurm-node-failed");
  const auto log = dir / "runs.log";
  const auto args = tune_args(dir / "out", on_slurm({"--json", "--retries", "0", "--csv", (dir / "first.csv").string()}));
  nlohmann::json doc;
  ASSERT_NO_FATAL_FAILURE(tune_with_first_step_ended(dir, args, doc));
  EXPECT_EQ(doc["failures"]["node_failed"], 1);
  std::string lost;
  for (const auto& [configuration, outcome] : measured(dir / "first.csv")) {
    if (outcome.rfind("node_failed", 0) == 0) lost = configuration;
  }
  ASSERT_FALSE(lost.empty());
  // Not the configuration's own failure: the cache does not keep it, the same run measures it again.
  fs::remove(log);
  auto again = run_cli(tune_args(dir / "out", on_slurm({"--json", "--retries", "0"})), env_with({{"SYNTH_LOG", log.string()}}));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["failures"]["node_failed"], 0);
  std::istringstream a(lost);
  std::string A, B, C, MODE;
  a >> A >> B >> C >> MODE;
  EXPECT_NE(read_text(log).find("--a " + A + " --b " + B + " --c " + C + " --mode " + MODE), std::string::npos) << lost;
}

TEST_F(SlurmAutotune, InterruptCancelsTheAllocationAndResumeMeasuresNothingTwice) {
  const auto dir = fresh_dir("slurm-sigint");
  const auto log = dir / "runs.log";
  const int pid = start_slow_tune(dir, log, tune_args(dir / "out", on_slurm({"--quiet"})), "150");
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 400 && lines_in(log) < 12; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_cli(pid), 1);
  EXPECT_NE(read_text(dir / "err.txt").find("--resume"), std::string::npos) << read_text(dir / "err.txt");
  EXPECT_EQ(live_jobs(), "");  // cancelled before the controller exits, not by a time limit
  const int before = lines_in(log);
  ASSERT_GT(before, 0);
  auto resumed = run_cli(tune_args(dir / "out", on_slurm({"--json", "--resume"})), env_with({{"SYNTH_LOG", log.string()}}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto doc = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(doc["best"]["configuration"].dump(), local_best());
  EXPECT_GT(doc["measured"]["from_cache"].get<int>(), 0);
  // Every configuration ran once, but the best two (measured again twice at the end) and at most
  // the two runs the signal cut short (an interrupted measurement is no result).
  const auto runs = runs_per_configuration(log);
  EXPECT_EQ(runs.size(), doc["measured"]["total"].get<size_t>());
  const int extra = repeated_runs(runs);
  EXPECT_GE(extra, 4);
  EXPECT_LE(extra, 6);
  EXPECT_TRUE(queue_empties()) << queue();
}

TEST_F(SlurmAutotune, AControllerKilledOutrightLeavesNoAllocation) {
  const auto dir = fresh_dir("slurm-sigkill");
  const auto log = dir / "runs.log";
  const int pid = start_slow_tune(dir, log, tune_args(dir / "out", on_slurm({"--quiet"})), "150");
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 400 && lines_in(log) < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ASSERT_NE(queue(), "");
  ::kill(pid, SIGKILL);
  wait_cli(pid);
  EXPECT_TRUE(queue_empties()) << queue();  // the watchdog cancels it within seconds, no time limit needed
}

TEST_F(SlurmAutotune, AFolderANodeDoesNotSeeIsRefusedBeforeAnyMeasurement) {
  const auto dir = fresh_dir("slurm-hidden");
  if (node2_sees_hidden()) GTEST_SKIP() << "node2 sees " << hidden() << ": mount namespaces are not allowed here";
  const auto log = dir / "runs.log";
  auto r = run_cli(tune_args(dir / "out", on_slurm({"--shared-dir", (hidden() / "work").string()})),
                   env_with({{"SYNTH_LOG", log.string()}}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("node node2 does not see it"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_FALSE(fs::exists(log));
  EXPECT_TRUE(queue_empties()) << queue();
}

// The steps run this rocm-perf at its own path on every node: a node where that path is not there
// is exit 3 naming the path, before anything is measured.
TEST_F(SlurmAutotune, ANodeThatCannotRunThisRocmPerfIsRefusedBeforeAnyMeasurement) {
  const auto dir = fresh_dir("slurm-unseen-binary");
  if (node2_sees_hidden()) GTEST_SKIP() << "node2 sees " << hidden() << ": mount namespaces are not allowed here";
  const fs::path binary = hidden() / "bin" / "rocm-perf";
  fs::create_directories(binary.parent_path());
  std::error_code ec;
  fs::remove(binary, ec);
  fs::create_hard_link(bin_dir() / "rocm-perf", binary, ec);
  if (ec) fs::copy_file(bin_dir() / "rocm-perf", binary);
  const auto log = dir / "runs.log";
  ProcessOptions p;
  p.argv = {binary.string()};
  for (const auto& a : tune_args(dir / "out", on_slurm({}))) p.argv.push_back(a);
  p.extra_env = env_with({{"SYNTH_LOG", log.string()}, {"NO_COLOR", "1"}});
  p.error_file = dir / "stderr";
  p.output_file = dir / "stdout";
  p.timeout = std::chrono::seconds(120);
  const auto r = run_process(p);
  const auto err = read_text(dir / "stderr");
  EXPECT_EQ(r.exit_status, 3) << err;
  EXPECT_NE(err.find("could not run " + binary.string() + " on every node"), std::string::npos) << err;
  EXPECT_EQ(count_lines(err), 1) << err;
  EXPECT_FALSE(fs::exists(log));
  EXPECT_TRUE(queue_empties()) << queue();
}

// The nodes' GPU name keys the cache, so an allocation whose nodes hold different GPUs is exit 2
// naming both, before anything is measured (the stand-in driver names its GPU after the node).
TEST_F(SlurmAutotune, AnAllocationOfMixedGpusIsRefusedBeforeAnyMeasurement) {
  const auto dir = fresh_dir("slurm-mixed-gpus");
  const auto log = dir / "runs.log";
  auto r = run_cli(tune_args(dir / "out", on_slurm({})),
                   env_with({{"LD_LIBRARY_PATH", (build_dir() / "fake-driver").string()}, {"RPL_FAKE_CUDA", "name-by-node"},
                             {"SYNTH_LOG", log.string()}}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the allocation mixes GPUs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Stand-in GPU of node1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Stand-in GPU of node2"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_FALSE(fs::exists(log));
  EXPECT_TRUE(queue_empties()) << queue();
}

TEST_F(SlurmAutotune, ARefusedAllocationGivesTheSchedulersMessage) {
  const auto dir = fresh_dir("slurm-refused");
  auto r = run_cli(tune_args(dir / "out", {"--launcher", "slurm", "--slurm-args", "--partition=nosuch"}), env_);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("Slurm refused the allocation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvalid partition"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

// Without a Slurm: the options' own checks.
TEST(SlurmAutotuneUsage, MissingSlurmCommandsAreNamed) {
  const auto dir = fresh_dir("slurm-missing");
  fs::create_directories(dir / "empty-path");
  auto r = run_cli(tune_args(dir / "out", {"--launcher", "slurm"}), {{"PATH", (dir / "empty-path").string()}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("salloc is not installed"), std::string::npos) << r.err;
}

TEST(SlurmAutotuneUsage, SlurmOptionsNeedTheSlurmLauncher) {
  const auto dir = fresh_dir("slurm-usage");
  auto r = run_cli(tune_args(dir / "out", {"--slurm-workers", "2"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--slurm-workers applies to --launcher slurm only"), std::string::npos) << r.err;
  r = run_cli(tune_args(dir / "out", {"--launcher", "slurm", "--devices", "0,1"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--devices picks this machine's GPUs"), std::string::npos) << r.err;
  r = run_cli(tune_args(dir / "out", {"--launcher", "slurm", "--replay", (dir / "m.csv").string()}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--replay measures nothing: it does not go with --launcher slurm"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

// The step wrapper, run by hand without what autotune gives it: usage errors, exit 2.
TEST(SlurmAutotuneUsage, TheStepWrapperSaysWhatItNeeds) {
  auto r = run_cli({"slurm-step"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("slurm-step: give --status FILE or --probe FILE TOKEN"), std::string::npos) << r.err;
  r = run_cli({"slurm-step", "--status", (fresh_dir("slurm-step") / "s.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("slurm-step: give the program after --"), std::string::npos) << r.err;
}

// The step wrapper records what its program did: an exit status, a signal, a timeout, a program
// that is not there; and the probe says whether this machine sees a token file.
TEST(SlurmAutotuneUsage, TheStepWrapperRecordsItsProgramsOutcome) {
  const auto dir = fresh_dir("slurm-step-status");
  const auto status = dir / "s.json";
  auto outcome = [&](std::vector<std::string> program, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"slurm-step", "--status", status.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--");
    args.insert(args.end(), program.begin(), program.end());
    const auto r = run_cli(args);
    const auto j = nlohmann::json::parse(read_text(status));
    EXPECT_TRUE(j["finished"].get<bool>());
    return std::pair{r.exit_code, j};
  };
  auto [code, j] = outcome({"sh", "-c", "exit 7"});
  EXPECT_EQ(code, 7);
  EXPECT_EQ(j["exit_status"], 7);
  std::tie(code, j) = outcome({"sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(code, 128 + SIGSEGV);
  EXPECT_EQ(j["term_signal"], SIGSEGV);
  std::tie(code, j) = outcome({"sleep", "30"}, {"--timeout", "0.3"});
  EXPECT_EQ(code, 124);
  EXPECT_TRUE(j["timed_out"].get<bool>());
  std::tie(code, j) = outcome({(dir / "no-such-program").string()});
  EXPECT_EQ(code, 127);
  EXPECT_NE(j["error"].get<std::string>(), "");
  std::ofstream(dir / "token") << "abc";
  auto probe = run_cli({"slurm-step", "--probe", (dir / "token").string(), "abc"});
  EXPECT_EQ(probe.exit_code, 0);
  EXPECT_NE(probe.out.find(" sees"), std::string::npos) << probe.out;
  probe = run_cli({"slurm-step", "--probe", (dir / "token").string(), "xyz"});
  EXPECT_EQ(probe.exit_code, 2);
  EXPECT_NE(probe.out.find(" blind"), std::string::npos) << probe.out;
}

}  // namespace
}  // namespace rpl::test
