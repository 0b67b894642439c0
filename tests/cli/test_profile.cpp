// rocm-perf profile through the stand-in rocprofv3, and --no-rocprof.
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/backends/cuda_tracer.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

struct FakeProfiler {
  fs::path dir = fresh_dir("profile");
  fs::path log = dir / "rocprofv3-argv.jsonl";
  std::vector<std::pair<std::string, std::string>> env(const std::string& scenario_name = "mi300x") const {
    return {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"},
            {"RPL_FAKE_ROCPROF_LOG", log.string()},
            {"RPL_FAKE_ROCPROF_SCENARIO", scenario_name}};
  }
  std::vector<nlohmann::json> invocations() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
};

// --trace-level: kernels leaves the HIP API trace (the DAG's explicit edges) out, full adds the markers.
TEST(CliProfile, TraceLevelChoosesWhatRocprofv3Records) {
  FakeProfiler fake;
  for (const auto& [level, flags] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"kernels", {"--kernel-trace", "--memory-copy-trace"}},
           {"full", {"--kernel-trace", "--memory-copy-trace", "--hip-runtime-trace", "--marker-trace"}}}) {
    fs::remove(fake.log);
    auto r = run_cli({"profile", "--runs", "1", "--trace-level", level, "--out", (fake.dir / level).string(), "--", "/bin/true"},
                     fake.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto calls = fake.invocations();
    ASSERT_EQ(calls.size(), 1u);
    const std::vector<std::string> argv = calls[0];
    EXPECT_EQ(std::vector<std::string>(argv.begin() + 1, argv.begin() + 1 + static_cast<long>(flags.size())), flags) << level;
    EXPECT_EQ(argv[1 + flags.size()], "--output-format") << level;
  }
  auto bad = run_cli({"profile", "--trace-level", "everything", "--", "/bin/true"}, fake.env());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--trace-level"), std::string::npos) << bad.err;
}

TEST(CliProfile, RunsRocprofv3WithExactlyTheDocumentedArguments) {
  FakeProfiler fake;
  const fs::path out = fake.dir / "out";
  auto r = run_cli({"profile", "--runs", "3", "--out", out.string(), "--json", "--", "/bin/echo", "hello world", "--flag"},
                   fake.env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto calls = fake.invocations();
  ASSERT_EQ(calls.size(), 3u);
  std::set<std::string> dirs;
  for (const auto& argv : calls) {
    ASSERT_EQ(argv.size(), 14u) << argv.dump();
    EXPECT_EQ(argv[0], (fake_rocprof_dir() / "rocprofv3").string());
    EXPECT_EQ(argv[1], "--kernel-trace");
    EXPECT_EQ(argv[2], "--memory-copy-trace");
    EXPECT_EQ(argv[3], "--hip-runtime-trace");
    EXPECT_EQ(argv[4], "--output-format");
    EXPECT_EQ(argv[5], "rocpd");
    EXPECT_EQ(argv[6], "-d");
    // Each process's database named by its host, pid and rank (rocprofv3's output keys).
    EXPECT_EQ(argv[8], "-o");
    EXPECT_EQ(argv[9], "%hostname%/%pid%.rank-s%env{SLURM_PROCID}%-o%env{OMPI_COMM_WORLD_RANK}%-p%env{PMI_RANK}%");
    EXPECT_EQ(argv[10], "--");
    EXPECT_EQ(argv[11], "/bin/echo");
    EXPECT_EQ(argv[12], "hello world");  // one argument, untouched by any shell
    EXPECT_EQ(argv[13], "--flag");
    dirs.insert(argv[7].get<std::string>());
    EXPECT_FALSE(fs::exists(argv[7].get<std::string>())) << "temporary folders are removed without --debug";
  }
  EXPECT_EQ(dirs.size(), 3u) << "each run gets its own output folder";

  // The output folder: profile.json equal to stdout, and one database per run.
  EXPECT_EQ(read_text(out / "profile.json"), r.out);
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  EXPECT_EQ(schema_errors(read_text(out / "dag.json"), "dag"), "");
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(out / ".rocpd_profile")) files.insert(e.path().filename().string());
  ASSERT_EQ(files.size(), 6u);  // a database and a log per run
  for (int run = 1; run <= 3; ++run) {
    const std::string prefix = "run" + std::to_string(run);
    EXPECT_TRUE(files.count(prefix + ".log"));
    EXPECT_EQ(std::count_if(files.begin(), files.end(), [&](const std::string& f) {
                return f.rfind(prefix + "_", 0) == 0 && f.find("_results.db") != std::string::npos;
              }), 1);
  }
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["backend"], "rocm");
  EXPECT_EQ(doc["stability"]["runs"], 3);
  EXPECT_EQ(doc["kernel"]["dispatches"], 120);
  // With --json the program's own stdout goes to our stderr, leaving stdout for the document.
  EXPECT_EQ(r.out.find("hello world"), std::string::npos);
  EXPECT_NE(r.err.find("hello world --flag"), std::string::npos) << r.err;
}

TEST(CliProfile, ProfileAgainReplacesTheTracesOfTheLastProfile) {
  FakeProfiler fake;
  const fs::path out = fake.dir / "out";
  ASSERT_EQ(run_cli({"profile", "--runs", "3", "--out", out.string(), "--", "/bin/true"}, fake.env()).exit_code, 0);
  ASSERT_EQ(run_cli({"profile", "--runs", "1", "--out", out.string(), "--", "/bin/true"}, fake.env()).exit_code, 0);
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out / ".rocpd_profile")) ++files;
  EXPECT_EQ(files, 2);  // run1's database and log
  EXPECT_EQ(nlohmann::json::parse(read_text(out / "profile.json"))["stability"]["runs"], 1);
}

TEST(CliProfile, ARunWithTwoGpuProcessesIsOneRunOfTwoProcesses) {
  FakeProfiler fake;
  auto env = fake.env();
  env.emplace_back("RPL_FAKE_ROCPROF_PROCESSES", "2");
  auto json = run_cli({"profile", "--json", "--runs", "1", "--out", (fake.dir / "j").string(), "--", "/bin/true"}, env);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["stability"]["runs"], 1);
  EXPECT_EQ(doc["stability"]["processes"], 2);
  EXPECT_EQ(doc["stability"]["samples"], 80);
  auto human = run_cli({"profile", "--runs", "2", "--out", (fake.dir / "h").string(), "--", "/bin/true"}, env);
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("over 160 samples in 2 runs (4 processes)"), std::string::npos) << human.out;
}

TEST(CliProfile, HumanAndQuietOutput) {
  FakeProfiler fake;
  auto human = run_cli({"profile", "--runs", "2", "--out", (fake.dir / "h").string(), "--", "/bin/true"}, fake.env());
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("Runtime     "), std::string::npos);
  EXPECT_NE(human.out.find("Occupancy   25.0 %"), std::string::npos);
  auto quiet = run_cli({"profile", "--quiet", "--runs", "1", "--out", (fake.dir / "q").string(), "--", "/bin/true"}, fake.env());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(count_lines(quiet.out), 1);
  EXPECT_GT(std::stod(quiet.out), 0.9);
}

TEST(CliProfile, DebugKeepsTemporaryFoldersAndPrintsCommands) {
  FakeProfiler fake;
  auto r = run_cli({"profile", "--debug", "--runs", "1", "--out", (fake.dir / "d").string(), "--", "/bin/true"}, fake.env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--kernel-trace --memory-copy-trace --hip-runtime-trace --output-format rocpd -d"), std::string::npos);
  auto calls = fake.invocations();
  ASSERT_EQ(calls.size(), 1u);
  const fs::path kept = fs::path(calls[0][7].get<std::string>()).parent_path();
  EXPECT_TRUE(fs::is_directory(kept));
  fs::remove_all(kept);
}

// A program that says something on each of its streams, and which run it is.
std::vector<std::string> talking_program() {
  return {"/bin/sh", "-c", "echo \"to stdout\"; echo \"to stderr\" >&2"};
}

TEST(CliProfile, ProgramOutputReachesTheTerminalAndEachRunsLog) {
  FakeProfiler fake;
  const fs::path out = fake.dir / "o";
  std::vector<std::string> args = {"profile", "--runs", "2", "--out", out.string(), "--"};
  for (const auto& a : talking_program()) args.push_back(a);
  auto r = run_cli(args, fake.env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Human mode: the program's stdout on ours (before the summary), its stderr on ours.
  EXPECT_LT(r.out.find("to stdout"), r.out.find("Kernel")) << r.out;
  EXPECT_EQ(r.out.find("to stderr"), std::string::npos);
  EXPECT_NE(r.err.find("to stderr"), std::string::npos) << r.err;
  for (const char* run : {"run1.log", "run2.log"}) {
    const std::string log = read_text(out / ".rocpd_profile" / run);
    EXPECT_NE(log.find("to stdout\n"), std::string::npos) << run << ": " << log;
    EXPECT_NE(log.find("to stderr\n"), std::string::npos) << run << ": " << log;
  }
}

TEST(CliProfile, JsonAndQuietKeepTheProgramsStdoutOffOurs) {
  FakeProfiler fake;
  for (const char* mode : {"--json", "--quiet"}) {
    std::vector<std::string> args = {"profile", mode, "--runs", "1", "--out", (fake.dir / mode).string(), "--"};
    for (const auto& a : talking_program()) args.push_back(a);
    auto r = run_cli(args, fake.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("to stdout"), std::string::npos) << mode;
    EXPECT_NE(r.err.find("to stdout"), std::string::npos) << mode << ": " << r.err;
    EXPECT_NE(r.err.find("to stderr"), std::string::npos) << mode << ": " << r.err;
  }
}

TEST(CliProfile, QuietAppSilencesTheProgramButKeepsItsLog) {
  FakeProfiler fake;
  for (const bool traced : {true, false}) {
    const fs::path out = fake.dir / (traced ? "traced" : "wallclock");
    std::vector<std::string> args = {"profile", "--quiet-app", "--runs", "1", "--out", out.string()};
    if (!traced) args.push_back("--no-rocprof");
    args.push_back("--");
    for (const auto& a : talking_program()) args.push_back(a);
    auto r = run_cli(args, fake.env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ((r.out + r.err).find("to std"), std::string::npos) << r.out << r.err;
    const std::string log = read_text(out / ".rocpd_profile" / "run1.log");
    EXPECT_NE(log.find("to stdout"), std::string::npos) << log;
    EXPECT_NE(log.find("to stderr"), std::string::npos) << log;
  }
}

TEST(CliProfile, NoRocprofPassesTheProgramsOutputThrough) {
  FakeProfiler fake;
  const fs::path out = fake.dir / "w";
  std::vector<std::string> args = {"profile", "--no-rocprof", "--runs", "2", "--out", out.string(), "--"};
  for (const auto& a : talking_program()) args.push_back(a);
  auto r = run_cli(args, {{"PATH", "/usr/bin:/bin"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("to stdout"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("to stderr"), std::string::npos) << r.err;
  EXPECT_NE(read_text(out / ".rocpd_profile" / "run2.log").find("to stdout"), std::string::npos);
}

TEST(CliProfile, AFailedRunsLogIsNamedAndKeptWithoutTouchingTheLastProfile) {
  FakeProfiler fake;
  const fs::path out = fake.dir / "keep";
  ASSERT_EQ(run_cli({"profile", "--runs", "1", "--out", out.string(), "--", "/bin/true"}, fake.env()).exit_code, 0);
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "1", "--out", out.string(), "--", "/bin/sh", "-c",
                    "echo why it failed; exit 7"},
                   fake.env());
  EXPECT_EQ(r.exit_code, 1);
  const fs::path log = out / ".rocpd_profile.new" / "run1.log";
  EXPECT_NE(r.err.find("(its output: " + log.string() + ")"), std::string::npos) << r.err;
  EXPECT_NE(read_text(log).find("why it failed"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / ".rocpd_profile" / "run1.log")) << "the last profile's folder is left as it was";
}

TEST(CliProfile, FailingProgramIsExitCode1NamingTheRun) {
  FakeProfiler fake;
  auto r = run_cli({"profile", "--runs", "3", "--out", (fake.dir / "f").string(), "--", "/bin/false"}, fake.env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("run 1 of 3: /bin/false exited with status 1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fake.dir / "f" / "profile.json"));
}

TEST(CliProfile, HangingProgramIsKilledWithItsProcessGroup) {
  FakeProfiler fake;
  const fs::path pid_file = fake.dir / "app.pid";
  auto r = run_cli({"profile", "--timeout", "1", "--runs", "2", "--out", (fake.dir / "t").string(), "--", "/bin/sh", "-c",
                    "echo $$ > \"$0\"; exec sleep 60", pid_file.string()},
                   fake.env(), 30);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_LT(r.seconds, 15);
  EXPECT_NE(r.err.find("run 1 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("timed out after 1 s"), std::string::npos) << r.err;
  pid_t app = 0;
  std::ifstream(pid_file) >> app;
  ASSERT_GT(app, 0);
  EXPECT_TRUE(process_gone(app)) << "the profiled program survived the timeout";
}

TEST(CliProfile, ProfilerThatWritesNoDatabaseIsExitCode1) {
  FakeProfiler fake;
  auto env = fake.env();
  env.emplace_back("RPL_FAKE_ROCPROF_NO_DB", "1");
  auto r = run_cli({"profile", "--runs", "1", "--out", (fake.dir / "n").string(), "--", "/bin/true"}, env);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("rocprofv3 wrote no *_results.db"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no kernels were recorded"), std::string::npos) << r.err;
}

TEST(CliProfile, TraceWithoutDispatchesIsExitCode1) {
  FakeProfiler fake;
  auto r = run_cli({"profile", "--runs", "1", "--out", (fake.dir / "e").string(), "--", "/bin/true"},
                   fake.env("no-dispatches"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/bin/true ran, but no kernel dispatches were recorded"), std::string::npos) << r.err;
}

TEST(CliProfile, MissingRocprofv3IsExitCode3) {
  FakeProfiler fake;
  auto r = run_cli({"profile", "--backend", "rocm", "--out", (fake.dir / "m").string(), "--", "/bin/true"},
                   {{"PATH", "/usr/bin:/bin"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(count_lines(r.err), 1);
  EXPECT_NE(r.err.find("rocprofv3 not found"), std::string::npos) << r.err;
}

TEST(CliProfile, NoProfilerAtAllIsExitCode3) {
  if (!backends::nvidia_gpu_unavailable()) GTEST_SKIP() << "this machine has an NVIDIA GPU";
  FakeProfiler fake;
  auto r = run_cli({"profile", "--out", (fake.dir / "n").string(), "--", "/bin/true"}, {{"PATH", "/usr/bin:/bin"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(count_lines(r.err), 1);
  EXPECT_NE(r.err.find("no profiler found: rocprofv3 is not in PATH"), std::string::npos) << r.err;
}

TEST(CliProfile, CudaBackendWithoutAGpuIsExitCode3) {
  if (!backends::nvidia_gpu_unavailable()) GTEST_SKIP() << "this machine has an NVIDIA GPU";
  FakeProfiler fake;
  auto r = run_cli({"profile", "--backend", "cuda", "--out", (fake.dir / "c").string(), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(count_lines(r.err), 1);
  EXPECT_NE(r.err.find("cannot trace on NVIDIA"), std::string::npos) << r.err;
}

// The NVIDIA probe's refusals, against a stand-in libcuda.so.1 (tests/fixtures/fake_libcuda.cpp).
TEST(CliProfile, CudaBackendRefusesAnOldDriverOrNoGpu) {
  FakeProfiler fake;
  const fs::path driver = build_dir() / "fake-driver";
  ASSERT_TRUE(fs::exists(driver / "libcuda.so.1"));
  for (const auto& [setting, message] : std::vector<std::pair<std::string, std::string>>{
           {"driver=12040", "cannot trace on NVIDIA: the NVIDIA driver supports CUDA 12.4; the CUPTI tracer needs CUDA 13.0 "
                            "or newer"},
           {"noinit", "cannot trace on NVIDIA: no usable NVIDIA GPU (cuInit returned 100)"},
           {"nodevices", "cannot trace on NVIDIA: no NVIDIA GPU found"}}) {
    auto r = run_cli({"profile", "--backend", "cuda", "--out", (fake.dir / setting).string(), "--", "/bin/true"},
                     {{"LD_LIBRARY_PATH", driver.string()}, {"RPL_FAKE_CUDA", setting},
                      {"RPL_CUPTI_TRACE_LIB", (driver / "libcuda.so.1").string()}});
    EXPECT_EQ(r.exit_code, 3) << setting << ": " << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(fake.dir / setting / "profile.json")) << setting;
  }
}

TEST(CliProfile, NoRocprofTimesTheWholeProcess) {
  FakeProfiler fake;
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "3", "--json", "--out", (fake.dir / "w").string(), "--", "/bin/sleep",
                    "0.05"},
                   {{"PATH", "/usr/bin:/bin"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["backend"], "wallclock");
  EXPECT_TRUE(doc["kernel"].is_null());
  EXPECT_TRUE(doc["resources"].is_null());
  EXPECT_TRUE(doc["occupancy"].is_null());
  EXPECT_EQ(doc["stability"]["samples"], 3);
  EXPECT_GE(doc["runtime_ms"].get<double>(), 50.0);
  EXPECT_TRUE(fake.invocations().empty()) << "--no-rocprof must not run rocprofv3";
}

// A multi-rank job under rocprofv3 (the stand-in writes a database per rank, each named as the -o
// pattern expands in a process whose SLURM_PROCID is its rank): each database says its rank, and
// profile.json gives the per-rank view; a process with no rank variable gets none.
TEST(CliProfile, EachRankOfAJobUnderRocprofv3IsRecorded) {
  FakeProfiler fake;
  auto env = fake.env();
  env.push_back({"RPL_FAKE_ROCPROF_RANKS", "3"});
  auto r = run_cli({"profile", "--runs", "2", "--out", (fake.dir / "p").string(), "--json", "--", "/bin/true"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "profile"), "");
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc["ranks"].is_object()) << r.out;
  std::vector<int> ranks;
  for (const auto& rank : doc["ranks"]["ranks"]) ranks.push_back(rank["rank"]);
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(doc["ranks"]["hosts"], 1);
  const auto one = run_cli({"profile", "--runs", "1", "--out", (fake.dir / "q").string(), "--json", "--", "/bin/true"}, fake.env());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(nlohmann::json::parse(one.out)["ranks"].is_null());
}

TEST(CliProfile, ProgramMayAlsoBeGivenWithoutDashes) {
  FakeProfiler fake;
  auto r = run_cli({"profile", "--runs", "1", "--out", (fake.dir / "p").string(), "/bin/true"}, fake.env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(fake.invocations().size(), 1u);
  EXPECT_EQ(fake.invocations()[0].back(), "/bin/true");
}

}  // namespace
}  // namespace rpl::test
