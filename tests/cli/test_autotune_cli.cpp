// rocm-perf autotune end to end, with the stand-in tunable program (tests/fixtures/synthetic_tunable.cpp):
// its printed time is a known function with its best at A=48 B=32 C=4 MODE=fast, a cliff, a crash,
// a launch failure, a hang and a silent configuration.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

std::string synthetic() { return (build_dir() / "fixtures/rpl-synthetic-tunable").string(); }
std::string space() { return (source_dir() / "tests/fixtures/autotune/synthetic_space.json").string(); }
std::string cmd_template() { return synthetic() + " --a {A} --b {B} --c {C} --mode {MODE}"; }

std::vector<std::string> tune_args(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"autotune", "--space", space(), "--cmd-template", cmd_template(), "--metric-regex",
                                "time_ms: ([0-9.]+)", "--min-samples", "1", "--timeout", "2", "--device-name", "test device",
                                "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The command template of the stand-in program that answers for SPACE from the measured TABLE of
// bench/data, with each configuration's measured noise; ARGUMENTS name the parameters.
std::string recorded_program(const std::string& space, const std::string& table, const std::string& arguments) {
  return (build_dir() / "fixtures/rpl-landscape-program").string() + " " + space + " " + (source_dir() / "bench/data" / table).string() +
         " " + arguments;
}

// The SGEMM space and the stand-in program that answers for it from the H100's measured table at 2048³.
struct RecordedSgemm {
  std::string space = (source_dir() / "examples/matmul/matmul_space.json").string();
  std::string program = recorded_program(space, "matmul_tunable_h100_exhaustive.csv", "BM={BM} BN={BN} BK={BK} TM={TM} TN={TN}");
};

TEST(CliAutotune, FindsTheKnownBestOnAFifthOfTheSpaceRunningNothingTwice) {
  const auto dir = fresh_dir("tune-best");
  const auto log = dir / "runs.log";
  auto r = run_cli(tune_args(dir / "out", {"--json", "--csv", (dir / "m.csv").string()}), {{"SYNTH_LOG", log.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  EXPECT_DOUBLE_EQ(doc["best"]["value"].get<double>(), 1.0);
  EXPECT_EQ(doc["space"]["size"], 1152);
  EXPECT_EQ(doc["measured"]["total"], doc["budget"]);
  EXPECT_LE(doc["measured"]["fraction_of_space"].get<double>(), 0.201);
  EXPECT_EQ(doc["failures"]["timed_out"].get<int>() + doc["failures"]["crashed"].get<int>() +
                doc["failures"]["launch_failed"].get<int>() + doc["failures"]["no_metric"].get<int>() > 0,
            true);
  EXPECT_EQ(read_text(dir / "out/autotune.json"), r.out);
  // Every configuration ran once, but the best and the runner-up, measured again twice.
  const auto runs = runs_per_configuration(log);
  EXPECT_EQ(runs.size(), doc["measured"]["total"].get<size_t>());
  int repeated = 0;
  for (const auto& [args, n] : runs) {
    if (n > 1) {
      EXPECT_EQ(n, 3) << args;
      ++repeated;
    }
  }
  EXPECT_EQ(repeated, 2);
  EXPECT_EQ(count_lines(read_text(dir / "m.csv")), doc["measured"]["total"].get<int>() + 1);
  EXPECT_EQ(read_text(dir / "out/measurements.csv"), read_text(dir / "m.csv")) << "the folder keeps what --csv writes";
}

TEST(CliAutotune, FailuresAreClassified) {
  const auto dir = fresh_dir("tune-failures");
  // The whole space of C=1..2 for A in 8, 16, B 8 or 128: a crash (A=8 C=1), a hang (A=16 B=8 C=2).
  std::ofstream(dir / "space.json") << R"({"parameters": {"A": [8, 16], "B": [8, 128], "C": [1, 2, 7], "MODE": ["fast"]}})";
  auto args = tune_args(dir / "out", {"--json", "--budget", "100%"});
  args[2] = (dir / "space.json").string();
  args[10] = "1";  // --timeout
  auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["failures"]["crashed"], 2);        // A=8 C=1, both B
  EXPECT_EQ(doc["failures"]["timed_out"], 1);      // A=16 B=8 C=2
  EXPECT_EQ(doc["failures"]["launch_failed"], 2);  // B=128 C=7
  EXPECT_EQ(doc["measured"]["total"], 12);
  EXPECT_NE(doc["best"]["configuration"]["C"], 1);
}

TEST(CliAutotune, TheSameRunAgainComesFromTheCache) {
  const auto dir = fresh_dir("tune-cache");
  const auto log = dir / "runs.log";
  auto first = run_cli(tune_args(dir / "out", {"--json"}), {{"SYNTH_LOG", log.string()}});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  fs::remove(log);
  auto second = run_cli(tune_args(dir / "out", {"--json"}), {{"SYNTH_LOG", log.string()}});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto a = nlohmann::json::parse(first.out), b = nlohmann::json::parse(second.out);
  EXPECT_EQ(b["measured"]["from_cache"], b["measured"]["total"]);
  EXPECT_EQ(a["best"]["configuration"], b["best"]["configuration"]);
  EXPECT_EQ(count_lines(read_text(log)), 4);  // the re-measurements only
}

TEST(CliAutotune, KilledRunResumesWithoutRunningAConfigurationTwice) {
  const auto dir = fresh_dir("tune-resume");
  const auto log = dir / "runs.log";
  // A slow program, so that the tuner is mid-way when the signal comes.
  const auto err_file = dir / "stderr.txt";
  const int pid = start_cli(tune_args(dir / "out", {"--quiet"}), err_file, {{"SYNTH_LOG", log.string()}, {"SYNTH_SLEEP_MS", "20"}});
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 400 && count_lines(read_text(log)) < 40; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ::kill(pid, SIGTERM);
  EXPECT_EQ(wait_cli(pid), 1);
  const auto err = read_text(err_file);
  EXPECT_NE(err.find("run the same command with --resume"), std::string::npos) << err;
  const int before = count_lines(read_text(log));
  ASSERT_GT(before, 0);
  auto resumed = run_cli(tune_args(dir / "out", {"--json", "--resume"}), {{"SYNTH_LOG", log.string()}});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto doc = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  EXPECT_GT(doc["measured"]["from_cache"].get<int>(), 0);
  const auto runs = runs_per_configuration(log);
  EXPECT_EQ(runs.size(), doc["measured"]["total"].get<size_t>());
  // The deliberate re-measurements (2 configurations, 2 rounds each), and at most the one run the
  // signal cut short: an interrupted measurement is no result, so it is made again.
  const int extra = repeated_runs(runs);
  EXPECT_GE(extra, 4);
  EXPECT_LE(extra, 5);
}

TEST(CliAutotune, ParallelWorkersGiveTheSequentialResult) {
  const auto dir = fresh_dir("tune-parallel");
  const auto log = dir / "runs.log";
  auto one = run_cli(tune_args(dir / "one", {"--json", "--csv", (dir / "one.csv").string()}));
  auto two = run_cli(tune_args(dir / "two", {"--json", "--devices", "0,1", "--csv", (dir / "two.csv").string()}),
                     {{"SYNTH_LOG", log.string()}});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  for (auto* d : {&a, &b}) {
    (*d)["device"].erase("workers");
    (*d).erase("cache");
    for (const char* clock : {"seconds", "remeasurement_seconds"}) {  // the wall clock's, never the same twice
      EXPECT_GT((*d)["measured"][clock].get<double>(), 0);
      (*d)["measured"].erase(clock);
    }
    for (auto& point : (*d)["curve"]) point.erase("seconds");
  }
  EXPECT_EQ(a, b);
  const auto log_text = read_text(log);
  EXPECT_NE(log_text.find("device=0"), std::string::npos);
  EXPECT_NE(log_text.find("device=1"), std::string::npos);
  // Off a terminal, a progress line ends with how many workers are busy.
  EXPECT_TRUE(std::regex_search(two.err, std::regex(R"(autotune: \w+ \d+/\d+, best [^\n]*, ETA [^\n]*, [0-2]/2 workers busy\n)"))) << two.err;
}

TEST(CliAutotune, ReplayOfAnExhaustiveRecording) {
  const auto dir = fresh_dir("tune-replay");
  // 1152 runs of the stand-in program: 107 and 121 s under AddressSanitizer on a 2-core machine, so
  // the hang guard is 600 s rather than run_cli's 120.
  auto all = run_cli(tune_args(dir / "all", {"--json", "--budget", "100%", "--seed-fraction", "1", "--csv", (dir / "all.csv").string()}), {}, 600);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(nlohmann::json::parse(all.out)["measured"]["total"], 1152);
  auto replay = run_cli({"autotune", "--space", space(), "--cmd-template", cmd_template(), "--metric-regex", "x(1)", "--replay",
                         (dir / "all.csv").string(), "--out", (dir / "replay").string(), "--json"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const auto doc = nlohmann::json::parse(replay.out);
  EXPECT_EQ(schema_errors(replay.out, "autotune"), "");
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  EXPECT_EQ(doc["cache"], nullptr);
}

// The default objective: the dominant kernel's time from the trace, here from the stand-in
// rocprofv3 (it runs the program and writes the mi300x scenario for each run).
TEST(CliAutotune, KernelTimeFromTheTraceOfEachRun) {
  const auto dir = fresh_dir("tune-kernel");
  std::ofstream(dir / "space.json") << R"({"parameters": {"A": [40, 48], "B": [32], "C": [4], "MODE": ["fast", "safe"]}})";
  const auto log = dir / "argv.jsonl";
  std::vector<std::pair<std::string, std::string>> env{{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"},
                                                       {"RPL_FAKE_ROCPROF_LOG", log.string()}};
  std::vector<std::string> args{"autotune", "--space", (dir / "space.json").string(), "--cmd-template", cmd_template(),
                                "--backend", "rocm", "--device-name", "MI300X", "--out", (dir / "out").string(), "--json"};
  auto r = run_cli(args, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["objective"]["kind"], "kernel_time");
  EXPECT_EQ(doc["objective"]["unit"], "ms");
  EXPECT_EQ(doc["measured"]["total"], 4);
  EXPECT_GT(doc["best"]["samples"].get<int>(), 1);  // every dispatch of the dominant kernel is a sample
  EXPECT_EQ(doc["top"].size(), 4u);
  EXPECT_GT(doc["best"]["value"].get<double>(), 0.0);
  // rocprofv3 ran the program with the configuration's arguments, never through a shell.
  const auto first = nlohmann::json::parse(read_text(log).substr(0, read_text(log).find('\n')));
  const auto argv = first.get<std::vector<std::string>>();
  ASSERT_GE(argv.size(), 9u);
  EXPECT_EQ(argv[argv.size() - 9], synthetic());
  EXPECT_EQ(argv.back() == "fast" || argv.back() == "safe", true);
  // A tracer that records nothing: every configuration is a no_kernel failure.
  env.emplace_back("RPL_FAKE_ROCPROF_NO_DB", "1");
  args.back() = "--quiet";
  args[args.size() - 2] = (dir / "out2").string();
  auto none = run_cli(args, env);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("every configuration measured failed (4 no_kernel)"), std::string::npos) << none.err;
}

// The stand-in program's dispatches through the stand-in rocprofv3: four of tuned<A> at the
// formula's time, then one of reference of SYNTH_REFERENCE_MS, as a program checking its result
// against a library's. At 4.05 ms the reference takes more GPU time than tuned<48> at B=32
// (4 x 1.0 ms), and less than half of it past the cliff (B=128: 4 x 4.0 ms and more).
struct DispatchingProgram {
  fs::path dir;
  std::vector<std::pair<std::string, std::string>> env{{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"},
                                                       {"RPL_FAKE_ROCPROF_SCENARIO", "hsa-dispatches"}};
  std::string b_values = "32, 128";
  explicit DispatchingProgram(const std::string& name, const char* reference_ms = "4.05") : dir(fresh_dir(name)) {
    if (reference_ms) env.emplace_back("SYNTH_REFERENCE_MS", reference_ms);
  }
  std::vector<std::string> args(const std::string& a_values, const std::string& modes, const std::string& seed,
                                const std::string& budget = "100%") {
    const auto space = dir / ("space_" + seed + ".json");
    std::ofstream(space) << R"({"parameters": {"A": [)" << a_values << R"(], "B": [)" << b_values << R"(], "C": [4], "MODE": [)" << modes
                         << "]}}";
    return {"autotune", "--space",  space.string(), "--cmd-template", cmd_template(), "--backend", "rocm", "--device-name", "MI300X",
            "--budget", budget, "--seed", seed,     "--out",          (dir / "out").string(),  "--json"};
  }
};

// Without --kernel, the kernel measured first is measured in every configuration, also where
// another takes more GPU time: the fastest configuration is not judged by the reference's time.
TEST(CliAutotune, TheKernelMeasuredFirstIsMeasuredWhereAnotherTakesMoreTime) {
  DispatchingProgram program("tune-kernel-fixed");
  auto r = run_cli(program.args("40, 48", R"("fast")", "1"), program.env);  // seed 1 measures A=40 B=128 first
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["objective"]["kernel"], "tuned");
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  EXPECT_DOUBLE_EQ(doc["best"]["value"].get<double>(), 1.0);
  const std::string warnings = doc["warnings"].dump();
  EXPECT_TRUE(std::regex_search(warnings, std::regex(R"(kernel_not_dominant: in [0-9]+ of [0-9]+ runs another kernel \(reference the )"
                                                     R"(first time\) took more GPU time than tuned)")))
      << warnings;
  // The cache keeps the kernel: a later run over more of the space measures tuned<A> in its new
  // configurations, although the first it measures leaves the reference as large.
  auto more = run_cli(program.args("40, 48, 52", R"("fast", "safe")", "2"), program.env);
  ASSERT_EQ(more.exit_code, 0) << more.err;
  const auto again = nlohmann::json::parse(more.out);
  EXPECT_EQ(again["objective"]["kernel"], "tuned");
  EXPECT_EQ(again["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
}

// A warm start from an earlier run's folder times the kernel that run timed: its best, measured
// first here, is where the reference takes as long as tuned<A>, too close to tell on its own.
TEST(CliAutotune, AWarmStartTimesTheKernelTheEarlierRunTimed) {
  DispatchingProgram program("tune-kernel-warm");
  ASSERT_EQ(run_cli(program.args("40, 48", R"("fast")", "1"), program.env).exit_code, 0);
  auto later = [&](const std::string& out, const fs::path& earlier) {
    auto args = program.args("40, 44, 48, 52", R"("fast")", "1", "4");  // bayes, the earlier best first
    args.end()[-2] = (program.dir / out).string();
    args.insert(args.end() - 1, {"--warm-start", earlier.string()});
    return run_cli(args, program.env);
  };
  auto warm = later("later", program.dir / "out");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  const auto doc = nlohmann::json::parse(warm.out);
  EXPECT_EQ(doc["objective"]["kernel"], "tuned");
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  // From the measurements alone (its CSV) it cannot know, and stops.
  auto from_csv = later("from_csv", program.dir / "out/measurements.csv");
  EXPECT_EQ(from_csv.exit_code, 2) << from_csv.err;
  EXPECT_NE(from_csv.err.find("too close to tell which one the configurations tune"), std::string::npos) << from_csv.err;
}

// Where the first run's two largest kernels are close, it cannot tell which one is tuned: the run
// stops at once and asks for --kernel, keeping no figure of the wrong kernel.
TEST(CliAutotune, AFirstRunWithoutAClearlyDominantKernelStopsAndAsksForIt) {
  DispatchingProgram program("tune-kernel-ambiguous");
  auto r = run_cli(program.args("40, 48", R"("fast")", "3"), program.env);  // seed 3 measures a configuration at B=32 first
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(the first configuration measured ran (reference|tuned<4[08]>) for [0-9.]+ ms and )"
                                                  R"((reference|tuned<4[08]>) for [0-9.]+ ms, too close to tell which one the )"
                                                  R"(configurations tune: name the kernel to tune with --kernel)")))
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  auto named = program.args("40, 48", R"("fast")", "3");
  named.insert(named.end() - 1, {"--kernel", "tuned<"});
  auto with_kernel = run_cli(named, program.env);
  ASSERT_EQ(with_kernel.exit_code, 0) << with_kernel.err;
  const auto named_doc = nlohmann::json::parse(with_kernel.out);
  EXPECT_EQ(named_doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  EXPECT_EQ(named_doc["objective"]["kernel"], "tuned") << "the function --kernel chose in every run";
}

// A --kernel that matches kernels of several functions times the largest in each run, which is
// the reference where tuned<48> is fast: the run says so.
TEST(CliAutotune, AKernelRegexMatchingSeveralFunctionsIsNamedInAWarning) {
  DispatchingProgram program("tune-kernel-regex");
  auto args = program.args("40, 48", R"("fast")", "1");
  args.insert(args.end() - 1, {"--kernel", "e"});
  auto r = run_cli(args, program.env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["objective"]["kernel"], nullptr) << "it chose tuned in one configuration, the reference in another";
  EXPECT_EQ(doc["objective"]["selector"], "e");
  const std::string warnings = doc["warnings"].dump();
  EXPECT_TRUE(std::regex_search(warnings, std::regex(R"(kernel_regex_matches_several: in [0-9]+ of [0-9]+ runs --kernel 'e' matched )"
                                                     R"(kernels of several functions \(tuned<40>, reference the first time\))")))
      << warnings;
  // A --kernel that is no regular expression is refused before anything runs.
  args.end()[-2] = "e(";
  auto bad = run_cli(args, program.env);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--kernel 'e(': not a valid regular expression"), std::string::npos) << bad.err;
}

// A check that takes twice the tuned kernel's time in every configuration is the kernel fixed,
// and every configuration measures alike: the run says so.
TEST(CliAutotune, AKernelTheConfigurationsDoNotChangeIsSaidToMeasureAlike) {
  DispatchingProgram program("tune-kernel-alike", "9");
  program.b_values = "32";
  auto r = run_cli(program.args("40, 44, 48, 52", R"("fast")", "1"), program.env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["objective"]["kernel"], "reference");
  EXPECT_NE(doc["warnings"].dump().find("configurations_alike: the 4 configurations measured are all within 0.0 % of each other"),
            std::string::npos)
      << doc["warnings"].dump();
}

// A configuration where the kernel measured first did not run fails, saying which kernel ran.
TEST(CliAutotune, AConfigurationWithoutTheKernelMeasuredFirstFailsNamingWhatRan) {
  DispatchingProgram program("tune-kernel-absent", nullptr);
  program.env.emplace_back("SYNTH_SAFE_KERNEL", "other");
  auto r = run_cli(program.args("40", R"("fast", "safe")", "1"), program.env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const std::string fixed = doc["objective"]["kernel"], ran = fixed == "tuned" ? "other<40>" : "tuned<40>";
  EXPECT_EQ(doc["failures"]["no_kernel"], 2);
  EXPECT_NE(read_text(program.dir / "out/measurements.csv")
                .find(fixed + ", the kernel this tuning measures (the dominant one where it was first measured), did not run; " + ran +
                      " was the dominant kernel: name the kernel to tune with --kernel (a regular expression: it may match the kernel of "
                      "every configuration)"),
            std::string::npos);
}

// With several workers the kernel is still fixed by the first configuration measured, whichever
// finishes first: that one runs alone, the others once it has fixed the kernel. Here it runs the
// longest, and the one measured second, where the reference is as large as tuned<48>, would stop
// the run.
TEST(CliAutotune, WithSeveralWorkersTheFirstConfigurationMeasuredFixesTheKernel) {
  DispatchingProgram program("tune-kernel-workers");
  program.env.insert(program.env.end(), {{"SYNTH_SLEEP_A", "40"}, {"SYNTH_SLEEP_MS", "500"}});
  auto args = program.args("40, 48", R"("fast")", "1");  // seed 1: A=40 B=128, then A=48 B=32
  args.insert(args.end() - 1, {"--devices", "0,1"});
  auto r = run_cli(args, program.env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["objective"]["kernel"], "tuned");
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
}

// A build template runs once per distinct build (here per MODE), its output in {BUILD_DIR}.
TEST(CliAutotune, BuildTemplateRunsOncePerDistinctBuild) {
  const auto dir = fresh_dir("tune-build");
  auto args = tune_args(dir / "out", {"--json", "--build-template", "cp " + synthetic() + " {BUILD_DIR}/synth_{MODE}"});
  args[4] = "{BUILD_DIR}/synth_{MODE} --a {A} --b {B} --c {C} --mode {MODE}";
  auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["best"]["configuration"].dump(), R"({"A":48,"B":32,"C":4,"MODE":"fast"})");
  int builds = 0;
  for (const auto& entry : fs::directory_iterator(dir / "out/builds")) {
    EXPECT_TRUE(fs::exists(entry.path() / ".built")) << entry.path();
    ++builds;
  }
  EXPECT_EQ(builds, 2);
  // Each measurement says what part of its seconds its build took (none where the build was made).
  std::istringstream csv(read_text(dir / "out/measurements.csv"));
  std::string line;
  std::getline(csv, line);
  ASSERT_NE(line.find(",runs,seconds,build_seconds,detail"), std::string::npos) << line;
  int rows = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> fields;  // the 14 before detail, which may hold commas
    std::istringstream row(line);
    for (std::string field; fields.size() < 14 && std::getline(row, field, ',');) fields.push_back(field);
    ASSERT_EQ(fields.size(), 14u) << line;
    const double seconds = std::stod(fields[12]), build = std::stod(fields[13]);
    EXPECT_GE(build, 0) << line;
    EXPECT_LE(build, seconds) << line;
    ++rows;
  }
  EXPECT_EQ(rows, doc["measured"]["total"].get<int>());
  // A build that fails is a build_failed configuration, and every one failing ends with exit 1.
  args = tune_args(dir / "out2", {"--quiet", "--build-template", "cp /nonexistent/{MODE} {BUILD_DIR}/x"});
  args[4] = "{BUILD_DIR}/x --a {A} --b {B} --c {C}";
  auto failed = run_cli(args);
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("build_failed"), std::string::npos) << failed.err;
}

// The SGEMM's landscape as the H100 measured it (bench/data), answered with its measured noise by
// the stand-in program: at a tenth of the space the default strategy (bayes) reports one of the two
// configurations within 3 % of the exhaustive best (0.642 ms), its curve a point a configuration.
TEST(CliAutotune, BayesOnTheRecordedSgemmLandscapeAndTheReportOfItsCurve) {
  const auto dir = fresh_dir("tune-landscape");
  const RecordedSgemm sgemm;
  const std::string& space = sgemm.space;
  const std::string& program = sgemm.program;
  auto r = run_cli({"autotune", "--space", space, "--cmd-template", program, "--metric-regex", "sample_ms=([0-9.]+)",
                    "--device-name", "recorded H100", "--budget", "10%", "--out", (dir / "out").string(), "--json"},
                   {{"RPL_LANDSCAPE_SEED", "1"}, {"RPL_LANDSCAPE_CALLS", dir.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["strategy"], "bayes");
  EXPECT_EQ(doc["budget"], 23);
  EXPECT_EQ(doc["measured"]["total"], 23);
  EXPECT_EQ(doc["measured"]["seed"].get<int>() + doc["measured"]["guided"].get<int>(), 23);
  EXPECT_EQ(doc["model"]["kind"], "gaussian_process_matern52_log");
  // Two seeds: the centre of the space is a candidate of the climb, measured as a guided pick or not.
  const auto& centre = doc["model"]["centre"];
  ASSERT_TRUE(centre.is_object()) << doc["model"];
  EXPECT_EQ(centre["configuration"].size(), 5u) << centre;
  EXPECT_EQ(centre["measured"].is_null(), centre["phase"].is_null()) << centre;
  if (!centre["phase"].is_null()) {
    EXPECT_EQ(centre["phase"], "guided") << centre;
    EXPECT_GT(centre["measured"].get<int>(), 2) << centre;
  }
  ASSERT_EQ(doc["curve"].size(), 23u);
  EXPECT_EQ(doc["curve"].back()["measured"], 23);
  const auto& best = doc["best"]["configuration"];
  EXPECT_TRUE(best["BM"] == 128 && best["BN"] == 128 && best["TM"] == 8 && best["TN"] == 8) << best;
  // The text summary says where the centre was measured, as the JSON does.
  auto text = run_cli({"autotune", "--space", space, "--cmd-template", program, "--metric-regex", "sample_ms=([0-9.]+)",
                       "--device-name", "recorded H100", "--budget", "10%", "--out", (dir / "text").string()},
                      {{"RPL_LANDSCAPE_SEED", "1"}, {"RPL_LANDSCAPE_CALLS", dir.string()}});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::string expected = centre["measured"].is_null() ? "not measured"
                                                             : "measured " + centre["measured"].dump() + " of 23 (guided)";
  EXPECT_NE(text.out.find("Centre of the space: BM=" + centre["configuration"]["BM"].dump()), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(expected), std::string::npos) << text.out;
}

// An SGEMM table's rows that succeeded, by their parameters (columns 4 to 8, as in a run's --csv),
// and the best of them.
struct SgemmTable {
  std::set<std::string> succeeded;
  std::string best;
};
std::string sgemm_parameters(const std::string& line) {
  size_t from = 0;
  for (int i = 0; i < 3; ++i) from = line.find(',', from) + 1;
  size_t to = from;
  for (int i = 0; i < 5; ++i) to = line.find(',', to) + 1;
  return line.substr(from, to - from);
}
SgemmTable sgemm_table(const std::string& text) {
  SgemmTable out;
  std::istringstream rows(text);
  double best = 1e300;
  for (std::string line; std::getline(rows, line);) {
    if (line.find(",none,") == std::string::npos) continue;
    out.succeeded.insert(sgemm_parameters(line));
    const auto at = line.find(",none,") + 6;
    const double value = std::stod(line.substr(at, line.find(',', at) - at));
    if (value < best) best = value, out.best = sgemm_parameters(line);
  }
  return out;
}
// The rows a run measured (its --csv), in order, by their parameters.
std::vector<std::string> measured_rows(const fs::path& csv) {
  std::istringstream rows(read_text(csv));
  std::vector<std::string> out;
  std::string line;
  std::getline(rows, line);  // the header
  while (std::getline(rows, line)) out.push_back(line);
  return out;
}

// A warm start from an earlier run of the same SGEMM's parameters at 1920³ on an H200 (its table,
// the CSV such a run writes) for the recorded H100 landscape at 2048³: its best is measured first,
// and 5 % of the space finds the exhaustive best.
TEST(CliAutotune, AWarmStartFromAnEarlierRunAtAnotherSize) {
  const auto dir = fresh_dir("tune-warm");
  const RecordedSgemm sgemm;
  const auto earlier = source_dir() / "bench/data/sgemm_1920_h200_exhaustive.csv";
  const std::string earlier_text = read_text(earlier);
  auto r = run_cli({"autotune", "--space", sgemm.space, "--cmd-template", sgemm.program, "--metric-regex", "sample_ms=([0-9.]+)",
                    "--device-name", "recorded H100", "--budget", "5%", "--warm-start", earlier.string(), "--csv",
                    (dir / "measured.csv").string(), "--out", (dir / "out").string(), "--json"},
                   {{"RPL_LANDSCAPE_SEED", "1"}, {"RPL_LANDSCAPE_CALLS", dir.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["warm_start"]["file"], earlier.string());
  EXPECT_EQ(doc["warm_start"]["files"], nlohmann::json::array({earlier.string()}));
  // Every row of the earlier table that succeeded (some configurations ran out of resources).
  const auto table = sgemm_table(earlier_text);
  EXPECT_EQ(doc["warm_start"]["configurations"], table.succeeded.size());
  EXPECT_EQ(doc["measured"]["total"], 12);
  // The first row measured holds the earlier best's parameters.
  const auto measured = measured_rows(dir / "measured.csv");
  ASSERT_FALSE(measured.empty());
  EXPECT_EQ(sgemm_parameters(measured.front()), table.best) << measured.front();
  EXPECT_NE(measured.front().find(",seed,"), std::string::npos) << measured.front();
  const auto& found = doc["best"]["configuration"];
  EXPECT_TRUE(found["BM"] == 128 && found["BN"] == 128 && found["TM"] == 8 && found["TN"] == 8) << found;
  EXPECT_EQ(read_text(earlier), earlier_text);  // read, never written
}

// Earlier runs at two sizes (1792³ on an H100, 1920³ on an H200) make one warm start: their bests
// are the first two measured, the first given's first, and each file is named in the order given;
// given the other way round, the other's best comes first.
TEST(CliAutotune, AWarmStartFromSeveralEarlierRuns) {
  const auto dir = fresh_dir("tune-warm-several");
  const RecordedSgemm sgemm;
  const auto a = source_dir() / "bench/data/sgemm_1792_h100_exhaustive.csv";
  const auto b = source_dir() / "bench/data/sgemm_1920_h200_exhaustive.csv";
  const auto table_a = sgemm_table(read_text(a)), table_b = sgemm_table(read_text(b));
  ASSERT_NE(table_a.best, table_b.best) << "the test needs runs whose bests differ";
  std::set<std::string> either = table_a.succeeded;
  either.insert(table_b.succeeded.begin(), table_b.succeeded.end());
  for (const bool swapped : {false, true}) {
    const auto& first = swapped ? b : a;
    const auto& second = swapped ? a : b;
    const auto out = dir / (swapped ? "ba" : "ab");
    auto r = run_cli({"autotune", "--space", sgemm.space, "--cmd-template", sgemm.program, "--metric-regex", "sample_ms=([0-9.]+)",
                      "--device-name", "recorded H100", "--budget", "5%", "--warm-start", first.string(), "--warm-start", second.string(),
                      "--csv", (out / "measured.csv").string(), "--out", out.string(), "--json"},
                     {{"RPL_LANDSCAPE_SEED", "1"}, {"RPL_LANDSCAPE_CALLS", dir.string()}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(schema_errors(r.out, "autotune"), "");
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["warm_start"]["file"], first.string());
    EXPECT_EQ(doc["warm_start"]["files"], nlohmann::json::array({first.string(), second.string()}));
    EXPECT_EQ(doc["warm_start"]["configurations"], either.size());
    const auto measured = measured_rows(out / "measured.csv");
    ASSERT_GE(measured.size(), 2u);
    EXPECT_EQ(sgemm_parameters(measured[0]), swapped ? table_b.best : table_a.best) << measured[0];
    EXPECT_EQ(sgemm_parameters(measured[1]), swapped ? table_a.best : table_b.best) << measured[1];
    EXPECT_NE(measured[1].find(",seed,"), std::string::npos) << measured[1];
    auto text = run_cli({"autotune", "--space", sgemm.space, "--cmd-template", sgemm.program, "--metric-regex", "sample_ms=([0-9.]+)",
                         "--budget", "5%", "--warm-start", first.string(), "--warm-start", second.string(), "--replay", out.string(),
                         "--out", (dir / "text").string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    const std::string line = "Warm start: " + std::to_string(either.size()) + " configurations that succeeded in " + first.string() +
                             ", " + second.string() + "\n";
    EXPECT_NE(text.out.find(line), std::string::npos) << text.out;
  }
}

// A time budget: no configuration is started after it; what was measured is kept.
TEST(CliAutotune, ABudgetOfTime) {
  const auto dir = fresh_dir("tune-time");
  auto r = run_cli(tune_args(dir / "out", {"--json", "--budget", "1s"}), {{"SYNTH_SLEEP_MS", "100"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["budget_seconds"], 1.0);
  EXPECT_LT(doc["measured"]["total"].get<int>(), 20);
  EXPECT_NE(doc["warnings"].dump().find("time_budget_reached"), std::string::npos) << doc["warnings"];
  // The progress's ETA is what is left of the second, not the whole space's count at that pace.
  const std::regex eta(R"(ETA ([^\n,]*))");
  int etas = 0;
  for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), eta); it != std::sregex_iterator(); ++it, ++etas) {
    EXPECT_TRUE((*it)[1] == "0 s" || (*it)[1] == "1 s") << (*it)[1];
  }
  EXPECT_GT(etas, 0) << r.err;
}

// bayes chooses one configuration at a time, but under a time budget one per GPU: what several
// GPUs buy in the time. The Triton table replayed at 60 s with four: 12 measured choosing one at a
// time, 38 choosing four.
TEST(CliAutotune, UnderATimeBudgetBayesChoosesOnePerDevice) {
  const auto dir = fresh_dir("tune-batch");
  auto tune = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{"autotune", "--space", (source_dir() / "tests/gpu/programs/triton_space.json").string(),
                                  "--cmd-template", "x {BM} {BN} {BK} {WARPS}", "--replay",
                                  (source_dir() / "bench/data/triton_h200_exhaustive.csv").string(), "--out", (dir / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  auto document = [&](const std::string& name, std::vector<std::string> extra) {
    extra.push_back("--json");
    const auto r = tune(name, extra);
    EXPECT_EQ(schema_errors(r.out, "autotune"), "") << name;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
  };
  const auto timed = document("timed", {"--budget", "60s", "--devices", "0,1,2,3"});
  EXPECT_EQ(timed["batch"], 4);
  const auto text = tune("text", {"--budget", "60s", "--devices", "0,1,2,3"}).out;
  EXPECT_NE(text.find("bayes strategy (4 at a time): "), std::string::npos) << text;
  const auto one = document("one", {"--budget", "60s", "--devices", "0,1,2,3", "--batch", "1"});
  EXPECT_EQ(one["batch"], 1);
  EXPECT_GT(timed["measured"]["total"].get<int>(), one["measured"]["total"].get<int>() + 4) << "four GPUs busy, not one";
  EXPECT_EQ(document("counted", {"--budget", "10%", "--devices", "0,1,2,3"})["batch"], 1) << "a count: the same choices on any number";
  EXPECT_EQ(document("random", {"--budget", "60s", "--devices", "0,1", "--strategy", "random"})["batch"], nullptr);
}

void expect_error(const std::vector<std::string>& args, int code, const std::string& message) {
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliAutotuneBadInput, EachGivesOneLineAndItsExitCode) {
  const auto dir = fresh_dir("tune-bad");
  auto with_space = [&](const std::string& text) {
    static int n = 0;
    const auto file = dir / ("space" + std::to_string(++n) + ".json");
    std::ofstream(file) << text;
    auto args = tune_args(dir / "out", {"--quiet"});
    args[2] = file.string();
    return args;
  };
  expect_error(with_space("{not json"), 2, "not JSON");
  expect_error(with_space(R"({"parameters": {"A": []}})"), 2, "parameter A: no values");
  expect_error(with_space(R"({"parameters": {"A": [1]}, "constraints": ["A >"]})"), 2, "constraint 'A >'");
  expect_error(with_space(R"({"parameters": {"A": [8], "B": [8], "C": [1], "MODE": ["x"]}, "constraints": ["A > 9"]})"), 2,
               "the constraints reject all 1 configurations");
  auto args = tune_args(dir / "out", {"--quiet"});
  args[4] = synthetic() + " --a {A} --b {B} --c {C} --mode {MODE} --d {D}";
  expect_error(args, 2, "{D} is no parameter of the search space");
  args[4] = synthetic() + " --a {A} --b {B} --c {C}";
  expect_error(args, 2, "parameter MODE is used by neither");
  args[4] = "/nonexistent/prog {A} {B} {C} {MODE}";
  expect_error(args, 2, "/nonexistent/prog: no such program");
  args[4] = "'unclosed {A}";
  expect_error(args, 2, "--cmd-template");
  args = tune_args(dir / "out", {"--quiet", "--budget", "lots"});
  expect_error(args, 2, "--budget 'lots'");
  args = tune_args(dir / "out", {"--quiet", "--budget", "5x"});
  expect_error(args, 2, "--budget '5x': give a count of configurations (45), a fraction (0.2), a percentage (20%) or a time");
  args = tune_args(dir / "out", {"--quiet", "--budget", ""});
  expect_error(args, 2, "--budget: empty: give a count, a fraction, a percentage or a time");
  args = tune_args(dir / "out", {"--quiet", "--strategy", "annealing"});
  expect_error(args, 2, "--strategy: annealing not in {bayes,model,random}");
  args = tune_args(dir / "out", {"--quiet", "--batch", "0"});
  expect_error(args, 2, "--batch: Value 0 not in range 1 to 1024");
  args = tune_args(dir / "out", {"--quiet"});
  args[6] = "(unclosed";
  expect_error(args, 2, "is not a regular expression");
  args = tune_args(dir / "fresh", {"--quiet", "--resume"});
  expect_error(args, 2, "holds no run of this space");
  std::ofstream(dir / "not_a_cache.db") << "hello";
  args = tune_args(dir / "out", {"--quiet", "--cache", (dir / "not_a_cache.db").string()});
  expect_error(args, 2, "not a usable autotune cache");
  EXPECT_EQ(read_text(dir / "not_a_cache.db"), "hello");
}

// Rows of the earlier CSV that are no configuration of this space are skipped with a warning
// that counts them; the rows that are serve.
TEST(CliAutotune, AWarmStartWithRowsOutsideTheSpaceWarnsAndUsesTheRest) {
  const auto dir = fresh_dir("tune-warm-outside");
  const std::string header = "order,phase,cached,A,B,C,MODE,failure,value,cv,samples,runs,seconds,detail\n";
  const std::string earlier = header + "1,seed,0,7,8,1,fast,none,1.5,0.01,5,1,0.1,\n2,seed,0,64,16,3,fast,none,0.9,0.01,5,1,0.1,\n" +
                              "3,guided,0,8,8,9,safe,none,0.5,0.01,5,1,0.1,\n";
  std::ofstream(dir / "earlier.csv") << earlier;
  auto r = run_cli(tune_args(dir / "out", {"--json", "--budget", "6", "--warm-start", (dir / "earlier.csv").string(), "--csv",
                                           (dir / "m.csv").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["warm_start"]["configurations"], 1);
  EXPECT_NE(doc["warnings"].dump().find("warm_start_rows_outside_space: 2 rows of"), std::string::npos) << doc["warnings"];
  // The one row of the space is the first measured.
  const std::string measured = read_text(dir / "m.csv");
  const auto first = measured.substr(measured.find('\n') + 1);
  EXPECT_EQ(first.rfind("1,seed,0,64,16,3,fast,", 0), 0u) << measured;
  EXPECT_EQ(read_text(dir / "earlier.csv"), earlier);
}

// The Triton matmul whose largest tiles fail to launch on an H200 (10 of 54), tuned at 4096³ from
// its measured table at 2048³, where the same ten failed: none of them is measured. Started from
// the same table without its failed rows, the same seed measures one.
TEST(CliAutotune, AWarmStartDoesNotMeasureWhatFailedThere) {
  const auto dir = fresh_dir("tune-warm-failed");
  const auto space = source_dir() / "tests/gpu/programs/triton_wall_space.json";
  const std::string program = recorded_program(space.string(), "triton_wall_h200_exhaustive.csv", "BM={BM} BN={BN} BK={BK} WARPS={WARPS}");
  const auto earlier = source_dir() / "bench/data/triton_wall_2k_h200_exhaustive.csv";
  const std::string earlier_text = read_text(earlier);
  std::string succeeded_only;
  std::istringstream rows(earlier_text);
  for (std::string line; std::getline(rows, line);) {
    if (line.find(",launch_failed,") == std::string::npos) succeeded_only += line + "\n";
  }
  std::ofstream(dir / "succeeded_only.csv") << succeeded_only;
  auto tune_from = [&](const fs::path& warm_start, const std::string& out) {
    return run_cli({"autotune", "--space", space.string(), "--cmd-template", program, "--metric-regex", "sample_ms=([0-9.e+-]+)",
                    "--device-name", "recorded H200", "--budget", "15", "--warm-start", warm_start.string(), "--out",
                    (dir / out).string(), "--json"},
                   {{"RPL_LANDSCAPE_SEED", "1"}});
  };
  auto told = tune_from(earlier, "told");
  ASSERT_EQ(told.exit_code, 0) << told.err;
  EXPECT_EQ(schema_errors(told.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(told.out);
  EXPECT_EQ(doc["warm_start"]["configurations"], 44);
  EXPECT_EQ(doc["warm_start"]["failed"], 10);
  EXPECT_EQ(doc["measured"]["total"], 15);
  EXPECT_EQ(doc["failures"]["launch_failed"], 0) << read_text(dir / "told/measurements.csv");
  EXPECT_EQ(read_text(earlier), earlier_text);

  auto unknowing = tune_from(dir / "succeeded_only.csv", "unknowing");
  ASSERT_EQ(unknowing.exit_code, 0) << unknowing.err;
  const auto unknowing_doc = nlohmann::json::parse(unknowing.out);
  EXPECT_EQ(unknowing_doc["warm_start"]["failed"], 0);
  EXPECT_GT(unknowing_doc["failures"]["launch_failed"], 0);
}

// The row reduction of 31 µs measured on an H200, whose launches spread by 5-6 % in the fastest
// configurations: each run of them stays above --max-cv, but their medians settle, so a
// configuration is run until its median does (two runs of 40 launches, not --max-runs' 10) and the
// best is kept and says so; none is recorded unstable (the first table of it,
// rowsum_1k_h200_first_run_unstable.csv, recorded its 37 fastest so).
TEST(CliAutotune, AKernelWhoseLaunchesSpreadRunsUntilItsMedianSettlesAndItsBestIsKept) {
  const auto dir = fresh_dir("tune-noisy-best");
  const auto space = source_dir() / "examples/rowsum/rowsum_space.json";
  const std::string program =
      recorded_program(space.string(), "rowsum_1k_h200_exhaustive.csv", "BLOCK={BLOCK} ROWS={ROWS} VEC={VEC} UNROLL={UNROLL}");
  auto r = run_cli({"autotune", "--space", space.string(), "--cmd-template", program, "--metric-regex", "sample_ms=([0-9.e+-]+)",
                    "--device-name", "recorded H200", "--budget", "12", "--out", (dir / "out").string(), "--json"},
                   {{"RPL_LANDSCAPE_SEED", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "autotune"), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["failures"]["unstable"], 0) << read_text(dir / "out/measurements.csv");
  EXPECT_FALSE(doc["best"]["stable"].get<bool>());
  EXPECT_GT(doc["best"]["cv"].get<double>(), 0.05);
  EXPECT_EQ(doc["best"]["remeasured"].size(), 2u);
  bool warned = false;
  for (const auto& w : doc["warnings"]) warned = warned || w.get<std::string>().rfind("best_noisy: ", 0) == 0;
  EXPECT_TRUE(warned) << doc["warnings"].dump();
  // Runs a configuration (the measurements' runs column): one where the launches settle within
  // --max-cv, two where only the median does.
  const std::string measured = read_text(dir / "out/measurements.csv");
  std::istringstream rows(measured);
  const auto fields = [](const std::string& line) {  // the columns before the detail have no commas
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, ',');) out.push_back(field);
    return out;
  };
  std::string line;
  std::getline(rows, line);
  const auto header = fields(line);
  const auto runs_column = static_cast<size_t>(std::find(header.begin(), header.end(), "runs") - header.begin());
  ASSERT_LT(runs_column, header.size()) << line;
  std::map<std::string, int> runs;
  while (std::getline(rows, line)) ++runs[fields(line).at(runs_column)];
  EXPECT_EQ(runs.size(), 2u) << measured;
  EXPECT_GT(runs["1"], 0) << measured;
  EXPECT_GT(runs["2"], 0) << measured;
}

// An earlier run's folder serves as its CSV would: for a warm start and for a replay.
TEST(CliAutotune, AnEarlierRunsFolderStartsOrReplaysTheNext) {
  const auto dir = fresh_dir("tune-warm-folder");
  auto first = run_cli(tune_args(dir / "first", {"--json", "--budget", "12"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto earlier = nlohmann::json::parse(first.out);
  const std::string measurements = read_text(dir / "first/measurements.csv");
  EXPECT_EQ(count_lines(measurements), earlier["measured"]["total"].get<int>() + 1) << measurements;

  auto warm = run_cli(tune_args(dir / "warm", {"--json", "--budget", "6", "--warm-start", (dir / "first").string(), "--csv",
                                              (dir / "warm.csv").string()}));
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  const auto doc = nlohmann::json::parse(warm.out);
  EXPECT_EQ(schema_errors(warm.out, "autotune"), "");
  EXPECT_EQ(doc["warm_start"]["file"], (dir / "first/measurements.csv").string());
  size_t succeeded = 0;
  for (size_t at = measurements.find(",none,"); at != std::string::npos; at = measurements.find(",none,", at + 1)) ++succeeded;
  EXPECT_EQ(doc["warm_start"]["configurations"], succeeded);
  // The earlier best is measured first.
  const std::string warm_csv = read_text(dir / "warm.csv");
  const auto first_row = warm_csv.substr(warm_csv.find('\n') + 1);
  const auto& best = earlier["best"]["configuration"];
  const std::string parameters = "1,seed,0," + best["A"].dump() + "," + best["B"].dump() + "," + best["C"].dump() + "," +
                                 best["MODE"].get<std::string>() + ",";
  EXPECT_EQ(first_row.rfind(parameters, 0), 0u) << warm_csv;

  auto replay = run_cli(tune_args(dir / "replayed", {"--json", "--budget", "12", "--replay", (dir / "first").string()}));
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const auto replayed = nlohmann::json::parse(replay.out);
  EXPECT_EQ(replayed["device"]["name"], "replay of " + (dir / "first/measurements.csv").string());
  EXPECT_EQ(replayed["best"]["configuration"], best) << "the same seed over the same measurements";
  EXPECT_EQ(read_text(dir / "first/measurements.csv"), measurements) << "read, never written";
}

TEST(CliAutotuneBadInput, AWarmStartThatCannotServe) {
  const auto dir = fresh_dir("tune-warm-bad");
  auto args = tune_args(dir / "out", {"--quiet", "--warm-start", (dir / "missing.csv").string()});
  expect_error(args, 2, "missing.csv");
  // A CSV of another space's parameters.
  const auto other = source_dir() / "bench/data/triton_1k_h100_exhaustive.csv";
  const std::string other_text = read_text(other);
  args = tune_args(dir / "out", {"--quiet", "--warm-start", other.string()});
  expect_error(args, 2, "no column 'A' (not a measurements CSV");
  EXPECT_EQ(read_text(other), other_text);
  // Of these parameters, but one row outside the space (A=7) and the other failed.
  const std::string header = "order,phase,cached,A,B,C,MODE,failure,value,cv,samples,runs,seconds,detail\n";
  const std::string nothing = header + "1,seed,0,7,8,1,fast,none,1.5,0.01,5,1,0.1,\n2,seed,0,8,8,1,fast,crashed,0,0,0,1,0.1,\n";
  std::ofstream(dir / "nothing.csv") << nothing;
  args = tune_args(dir / "out", {"--quiet", "--warm-start", (dir / "nothing.csv").string()});
  expect_error(args, 2, "none of its rows is a configuration of this space that succeeded");
  EXPECT_EQ(read_text(dir / "nothing.csv"), nothing);
  args = tune_args(dir / "out", {"--quiet", "--strategy", "model", "--warm-start", other.string()});
  expect_error(args, 2, "--warm-start guides the bayes strategy only");
  // Of several earlier runs, the one that cannot serve is named; one flag takes one run.
  ASSERT_EQ(run_cli(tune_args(dir / "good", {"--quiet", "--budget", "4"})).exit_code, 0);
  args = tune_args(dir / "out", {"--quiet", "--warm-start", (dir / "good").string(), "--warm-start", (dir / "nothing.csv").string()});
  expect_error(args, 2, "--warm-start " + (dir / "nothing.csv").string() + ": none of its rows");
  args = tune_args(dir / "out", {"--quiet", "--warm-start", (dir / "good").string(), (dir / "good").string()});
  expect_error(args, 2, "The following argument was not expected: " + (dir / "good").string());
  // A folder that is no autotune output folder, for either option.
  fs::create_directory(dir / "empty");
  args = tune_args(dir / "out", {"--quiet", "--warm-start", (dir / "empty").string()});
  expect_error(args, 2, "--warm-start " + (dir / "empty").string() + ": a folder without measurements.csv");
  args = tune_args(dir / "out", {"--quiet", "--replay", (dir / "empty").string()});
  expect_error(args, 2, "--replay " + (dir / "empty").string() + ": a folder without measurements.csv");
  EXPECT_TRUE(fs::is_empty(dir / "empty"));
  // What this run would write over: the --out folder's measurements, or its --csv.
  ASSERT_EQ(run_cli(tune_args(dir / "earlier", {"--quiet", "--budget", "4"})).exit_code, 0);
  const std::string kept = read_text(dir / "earlier/measurements.csv");
  args = tune_args(dir / "earlier", {"--quiet", "--replay", (dir / "earlier").string()});
  expect_error(args, 2, "--replay " + (dir / "earlier").string() + ": this run would write over it");
  args = tune_args(dir / "earlier/../earlier", {"--quiet", "--warm-start", (dir / "earlier/measurements.csv").string()});
  expect_error(args, 2, "this run would write over it; give another --out or --csv");
  args = tune_args(dir / "out", {"--quiet", "--replay", (dir / "earlier").string(), "--csv", (dir / "earlier/measurements.csv").string()});
  expect_error(args, 2, "this run would write over it");
  fs::create_hard_link(dir / "earlier/measurements.csv", dir / "linked.csv");
  args = tune_args(dir / "out", {"--quiet", "--replay", (dir / "earlier").string(), "--csv", (dir / "linked.csv").string()});
  expect_error(args, 2, "this run would write over it");
  EXPECT_EQ(read_text(dir / "earlier/measurements.csv"), kept);
}

// A time budget replayed from a CSV that records no time, or a time that is none, is refused; the
// file is left as it was.
TEST(CliAutotuneBadInput, AReplayedTimeBudgetNeedsRecordedTimes) {
  const auto dir = fresh_dir("tune-replay-time");
  const std::string untimed = "order,phase,cached,A,B,C,MODE,failure,value,cv,samples,detail\n1,seed,0,40,32,4,fast,none,1.5,0.01,5,\n";
  std::ofstream(dir / "untimed.csv") << untimed;
  auto args = tune_args(dir / "out", {"--quiet", "--budget", "10m", "--replay", (dir / "untimed.csv").string()});
  expect_error(args, 2, "--budget 10m: --replay " + (dir / "untimed.csv").string() + " records no time taken");
  EXPECT_EQ(read_text(dir / "untimed.csv"), untimed);
  args = tune_args(dir / "out", {"--quiet", "--budget", "4", "--replay", (dir / "untimed.csv").string()});
  const auto counted = run_cli(args);  // the one configuration recorded is seldom among the four it measures: exit 1
  EXPECT_NE(counted.exit_code, 2) << counted.err;
  EXPECT_EQ(counted.err.find("records no time"), std::string::npos) << "a count needs no time: " << counted.err;
  const std::string header = "order,phase,cached,A,B,C,MODE,failure,value,cv,samples,runs,seconds,detail\n";
  std::ofstream(dir / "zero.csv") << header + "1,seed,0,40,32,4,fast,none,1.5,0.01,5,1,0.000,\n";
  args = tune_args(dir / "out", {"--quiet", "--budget", "90s", "--replay", (dir / "zero.csv").string()});
  expect_error(args, 2, "records no time taken (its seconds are absent or 0)");
  std::ofstream(dir / "negative.csv") << header + "1,seed,0,40,32,4,fast,none,1.5,0.01,5,1,-2,\n";
  args = tune_args(dir / "out", {"--quiet", "--budget", "90s", "--replay", (dir / "negative.csv").string()});
  expect_error(args, 2, "negative.csv: row 2: seconds -2 is not a time taken");
  std::ofstream(dir / "word.csv") << header + "1,seed,0,40,32,4,fast,none,1.5,0.01,5,1,soon,\n";
  args = tune_args(dir / "out", {"--quiet", "--replay", (dir / "word.csv").string()});
  expect_error(args, 2, "word.csv: row 2: value, cv, samples, seconds or build_seconds is not a number");
  const std::string built = "order,phase,cached,A,B,C,MODE,failure,value,cv,samples,runs,seconds,build_seconds,detail\n";
  std::ofstream(dir / "build.csv") << built + "1,seed,0,40,32,4,fast,none,1.5,0.01,5,1,2.000,3.000,\n";
  args = tune_args(dir / "out", {"--quiet", "--replay", (dir / "build.csv").string()});
  expect_error(args, 2, "build.csv: row 2: build_seconds 3 is not a part of its seconds 2");
}

TEST(CliAutotuneBadInput, EveryConfigurationFailing) {
  const auto dir = fresh_dir("tune-allfail");
  auto args = tune_args(dir / "out", {"--quiet"});
  args[6] = "no such figure ([0-9]+)";
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("every configuration measured failed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no_metric"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(CliAutotuneBadInput, ChangedProgramIsNotResumed) {
  const auto dir = fresh_dir("tune-otherprogram");
  fs::copy_file(synthetic(), dir / "prog");
  fs::permissions(dir / "prog", fs::perms::owner_all);
  auto args = tune_args(dir / "out", {"--quiet"});
  args[4] = (dir / "prog").string() + " --a {A} --b {B} --c {C} --mode {MODE}";
  ASSERT_EQ(run_cli(args).exit_code, 0);
  std::ofstream(dir / "prog", std::ios::app) << "rebuilt";
  args.push_back("--resume");
  expect_error(args, 2, "the program or the files the templates name changed");
}

TEST(CliAutotune, SpaceFilesFollowTheirSchema) {
  for (const char* space : {"examples/matmul/matmul_space.json", "examples/matmul/matmul_large_space.json", "examples/stencil/stencil_space.json",
                            "examples/stencil/stencil_large_space.json", "tests/fixtures/autotune/synthetic_space.json",
                            "tests/gpu/programs/triton_space.json", "tests/gpu/programs/triton_wall_space.json",
                            "tests/gpu/programs/triton_softmax_space.json"}) {
    const auto file = source_dir() / space;
    EXPECT_EQ(schema_errors(read_text(file), "autotune-space"), "") << file;
  }
  EXPECT_NE(schema_errors(R"({"parameters": {"A": {"min": 1}}})", "autotune-space"), "");
}

TEST(CliAutotuneBadInput, CacheOfAnotherDeviceOrProgramIsNotResumed) {
  const auto dir = fresh_dir("tune-otherdevice");
  // A short run that is interrupted: its run stays "running" in the cache.
  auto first = run_cli(tune_args(dir / "out", {"--quiet"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto args = tune_args(dir / "out", {"--quiet", "--resume"});
  for (auto& a : args) {
    if (a == "test device") a = "another device";
  }
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was written on test device, but this is another device"), std::string::npos) << r.err;
  // Without --resume the other device's measurements are simply not reused, and it says so.
  args.erase(std::find(args.begin(), args.end(), "--resume"));
  args.push_back("--json");
  args.erase(std::find(args.begin(), args.end(), "--quiet"));
  auto fresh = run_cli(args);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  const auto doc = nlohmann::json::parse(fresh.out);
  EXPECT_EQ(doc["measured"]["from_cache"], 0);
  EXPECT_NE(doc["warnings"].dump().find("cache_other_scope"), std::string::npos);
}

// A program that prints a very long line: the metric is still read from the lines after it, and
// rocm-perf does not crash (a greedy pattern over a 2 MB line overflowed std::regex's stack).
TEST(CliAutotune, AVeryLongLineOfOutputIsSkipped) {
  const auto dir = fresh_dir("tune-long-line");
  std::ofstream(dir / "space.json") << R"({"parameters": {"A": [1]}})";
  const std::string script = "head -c 2000000 /dev/zero | tr '\\0' 7; echo; echo time_ms: 3.{A}";
  auto r = run_cli({"autotune", "--space", (dir / "space.json").string(), "--cmd-template", "/bin/sh -c \"" + script + "\"",
                    "--metric-regex", "time_ms: (.*)|(7+)", "--min-samples", "1", "--timeout", "20", "--device-name", "test",
                    "--json", "--out", (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out)["best"]["value"].get<double>(), 3.1);
}

}  // namespace
}  // namespace rpl::test
