// workflow::run_optimize in-process, without a GPU or a compiler: its seams answered by doubles
// that behave as a GPU would. A "build" writes the variant's text as its binary; the kernel's code
// object is what the marker in its body says ("// gpu: compute 0.5": test::stand_in_replay's
// behaviour and the time each launch takes, ms); the program's trace, the captured oracle and the
// replays follow from it. What is tested is the loop: the guards in their order, the verdicts, the
// best, the source written only with apply and never when cancelled.
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/capture_summary.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/workflow/optimize.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

const char* kMangled = "_Z5scalePfPKfi";

std::string kernel_with(const std::string& marker) {
  return "__global__ void scale(float* out, const float* in, int n) {\n"
         "  // gpu: " + marker + "\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = in[i] * 10.0f;\n"
         "}\n";
}

// The marker in a text or binary: "compute 0.5".
std::string marker_of(const std::string& text) {
  const auto at = text.find("// gpu: ");
  if (at == std::string::npos) return "";
  const auto start = at + 8;
  return text.substr(start, text.find('\n', start) - start);
}

// The time one launch takes: the marker's number; in the whole program, the second number where
// one follows (a kernel fast on replay and slow in the program). "race" after them: the sanitizer
// double's racecheck reports a race.
double launch_ms(const std::string& marker, bool program) {
  std::istringstream in(marker);
  std::string behaviour;
  double replay_ms = 1, program_ms = 0;
  in >> behaviour >> replay_ms;
  if (program && (in >> program_ms)) return program_ms;
  return replay_ms;
}

// A GPU, a compiler and a profiler, as the loop sees them; counts what it was asked.
struct FakeGpu {
  int builds = 0, traces = 0, captures = 0, timed = 0;

  workflow::OptimizeSeams seams() {
    workflow::OptimizeSeams s;
    s.build = [this](const std::vector<std::pair<std::string, fs::path>>& variants) {
      std::vector<optimize::BuiltVariant> out;
      for (const auto& [text, dir] : variants) {
        ++builds;
        optimize::BuiltVariant b;
        b.source = dir / "kernel.cu";
        b.binary = dir / "variant";
        fs::create_directories(dir);
        write_output_file(b.source, text);
        if (marker_of(text).rfind("syntax", 0) == 0) {
          b.failure = "the build exited with status 1";
          b.log = "kernel.cu:2: error: expected ';'";
        } else {
          write_output_file(b.binary, text);
          fs::permissions(b.binary, fs::perms::owner_exec, fs::perm_options::add);  // as a linker leaves it
          b.ok = true;
        }
        b.seconds = 0.01;
        out.push_back(b);
      }
      return out;
    };
    s.code_object = [](const fs::path& binary, const std::string& arch, const std::string& mangled) -> std::optional<std::string> {
      EXPECT_EQ(arch, "sm_90");
      EXPECT_EQ(mangled, kMangled);
      return elf_header(190) + marker_of(read_file(binary));
    };
    s.inspect = [](const fs::path&, const analysis::InspectOptions&) { return std::optional<analysis::InspectedKernel>(); };
    s.trace = [this](const std::string& vendor, const backends::RunOptions& run, const fs::path& dir) {
      EXPECT_EQ(vendor, "nvidia");
      ++traces;
      const double ms = launch_ms(marker_of(read_file(run.command.at(0))), true);
      std::vector<fs::path> dbs;
      for (int r = 1; r <= run.runs; ++r) {
        std::vector<tools::ObservedDispatch> dispatches;
        int64_t t = 1'000'000'000;
        for (int i = 0; i < 4; ++i) {  // the launches vary by a part in a thousand, run to run
          const auto ns = static_cast<int64_t>(ms * 1e6 * (1 + 0.001 * ((r + i) % 3)));
          dispatches.push_back({kMangled, t, t + ns, {256, 1, 1}, {1024, 1, 1}});
          t += ns + 1000;
        }
        fs::create_directories(dir);
        dbs.push_back(dir / ("run" + std::to_string(r) + ".db"));
        tools::write_observed_trace(dbs.back(), 100 + r, dispatches);
        // What the program prints: "sum=X" in the marker, else 100.
        const std::string marker = marker_of(read_file(run.command.at(0)));
        const auto sum = marker.find("sum=");
        write_output_file(dir / ("run" + std::to_string(r) + ".log"),
                          "sum: " + (sum == std::string::npos ? std::string("100") : marker.substr(sum + 4)) + "\n");
      }
      return trace::read_rocpd(dbs);
    };
    s.capture = [this](const std::string&, const backends::CaptureRequest& request) {
      ++captures;
      write_recomputing_snapshot(request.snapshot_dir);
      isolate::CaptureStatus status;
      status.captured = true;
      status.kernel = kMangled;
      status.regions = 2;
      status.bytes = 24;
      backends::CaptureRun run;
      run.process.exit_status = 0;
      run.status_json = isolate::format_capture_status(status);
      return run;
    };
    s.replay = [](const std::string&, const fs::path& snapshot, const fs::path& dump) { stand_in_replay(snapshot, dump); };
    s.time_replay = [this](const std::string&, const fs::path& snapshot, uint64_t) {
      const auto snap = isolate::read_snapshot(snapshot);
      const double ms = launch_ms(read_file(snapshot / snap.dispatch.code_object).substr(64), false);
      return ms * (1 + 0.002 * (++timed % 2));
    };
    s.find_sanitizer = [] { return std::optional<fs::path>("/opt/fake/compute-sanitizer"); };
    s.sanitized_replay = [](const fs::path&, const std::string& tool, const fs::path& snapshot) {
      const auto snap = isolate::read_snapshot(snapshot);
      const bool race = read_file(snapshot / snap.dispatch.code_object).find(" race") != std::string::npos;
      const std::string log = race && tool == "racecheck" ? "softmax_shared_race_racecheck" : "original_" + tool;
      return read_file(source_dir() / "tests/fixtures/sanitizer" / (log + ".log"));
    };
    return s;
  }
};

// Records every event; where asked, cancels at the first verdict whose line holds cancel_at.
struct Recorder : workflow::Observer {
  std::vector<workflow::Event> events;
  std::atomic<bool>* cancel = nullptr;
  std::string cancel_at;
  void on_event(const workflow::Event& e) override {
    events.push_back(e);
    if (cancel && e.kind == workflow::EventKind::candidate_verdict && e.message.find(cancel_at) != std::string::npos) *cancel = true;
  }
};

struct OptimizeSetup {
  fs::path dir, source;
  std::string original;
  workflow::OptimizeRequest request;
};

// The original (1 ms a launch) and candidate files, each a new definition of the kernel.
OptimizeSetup setup(const std::string& name, FakeGpu& gpu, const std::vector<std::string>& candidate_markers) {
  OptimizeSetup s;
  s.dir = fresh_dir(name);
  s.source = s.dir / "scale.cu";
  s.original = "#include <cstdio>\n\n" + kernel_with("compute 1.0") + "\nint main() { return 0; }\n";
  write_output_file(s.source, s.original);
  auto& r = s.request;
  r.source = s.source;
  r.build = "nvcc {SOURCE} -o {BINARY}";
  r.program = {"{BINARY}", "1024"};
  r.out = s.dir / "out";
  r.backend = "cuda";
  r.runs = 3;
  r.unroll = r.launch_bounds = r.restrict_pointers = false;
  for (size_t i = 0; i < candidate_markers.size(); ++i) {
    r.candidate_files.push_back(s.dir / ("candidate" + std::to_string(i + 1) + ".cu"));
    write_output_file(r.candidate_files.back(), kernel_with(candidate_markers[i]));
  }
  r.seams = gpu.seams();
  return s;
}

const workflow::CandidateRecord& candidate(const workflow::OptimizeResult& r, int id) { return r.candidates.at(static_cast<size_t>(id - 1)); }

TEST(WorkflowOptimize, TheFastestCorrectCandidateWinsAndEachOtherStopsAtItsGuard) {
  FakeGpu gpu;
  auto s = setup("optimize_verdicts", gpu,
                 {"compute 0.8", "nothing 0.1", "over_nan 0.5", "compute 1.3", "compute 0.5", "syntax", "compute 0.4 race", "compute 0.5",
                  "fault 0.2", "compute 0.6 1.4"});
  Recorder recorder;
  workflow::Control control(&recorder);
  const auto r = workflow::run_optimize(s.request, control);
  ASSERT_EQ(r.candidates.size(), 10u);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"accepted", ""},                        // 0.8 ms
      {"rejected", "correctness"},             // writes nothing: the poisoned output stays
      {"rejected", "determinism"},             // passes over 0xFF, not over 0xA5
      {"rejected", "speed"},                   // correct, slower
      {"accepted", ""},                        // 0.5 ms: the best
      {"rejected", "compile"},
      {"rejected", "sanitizer"},               // racecheck reports what the original's replay does not
      {"rejected", "duplicate"},               // the same text as the fifth
      {"rejected", "correctness"},             // the replay faults
      {"rejected", "program_speed"},           // fast on replay, slow in the program
  };
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& c = r.candidates[i];
    EXPECT_EQ(c.verdict, expected[i].first) << c.id << " " << c.origin << ": " << c.reason;
    EXPECT_EQ(c.stage, expected[i].second) << c.id << " " << c.origin << ": " << c.reason;
  }
  EXPECT_NE(candidate(r, 9).reason.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << candidate(r, 9).reason;
  EXPECT_EQ(candidate(r, 6).build_log, "kernel.cu:2: error: expected ';'");
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.candidates[*r.best].id, 5);
  EXPECT_NEAR(r.candidates[*r.best].replay->before_mean / r.candidates[*r.best].replay->after_mean, 2.0, 0.01);
  EXPECT_FALSE(r.applied);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(read_file(s.source), s.original) << "the source is written only with apply";
  EXPECT_TRUE(fs::exists(s.request.out / "best.patch"));
  EXPECT_EQ(read_file(s.request.out / "best" / "scale.cu"), r.candidates[*r.best].text);
  // Two oracles (dispatches 1 and 2), one shape; the sanitizer ran on the original.
  EXPECT_EQ(gpu.captures, 2);
  ASSERT_EQ(r.oracles.size(), 2u);
  EXPECT_EQ(r.oracles[0].poisoned_bytes, 16u) << "the output, not the input it reads";
  EXPECT_EQ(r.oracle_shapes, 1u);
  EXPECT_TRUE(r.sanitizer.open) << r.sanitizer.reason;
  // A verdict event per candidate, in order, and the stages before them.
  std::vector<std::string> verdicts;
  for (const auto& e : recorder.events) {
    if (e.kind == workflow::EventKind::candidate_verdict) verdicts.push_back(e.message);
  }
  ASSERT_EQ(verdicts.size(), 10u + 3u) << "each candidate, and again each confirmed in the program";
  EXPECT_EQ(verdicts[0].rfind("[8] candidate file", 0), 0u) << "a text seen before is refused before anything builds: " << verdicts[0];
  EXPECT_EQ(verdicts[1].rfind("[1] candidate file", 0), 0u) << verdicts[1];
  EXPECT_EQ(recorder.events.front().message, "building the original twice (a deterministic rebuild)");
  // optimize.json renders the result as the schema says.
  EXPECT_EQ(schema_errors(report::dump(workflow::optimize_document(r, s.source)), "optimize"), "");
}

TEST(WorkflowOptimize, ApplyWritesTheWinnerIntoTheSource) {
  FakeGpu gpu;
  auto s = setup("optimize_apply", gpu, {"compute 0.5"});
  s.request.apply = true;
  workflow::Control control;
  const auto r = workflow::run_optimize(s.request, control);
  ASSERT_TRUE(r.best);
  EXPECT_TRUE(r.applied);
  EXPECT_EQ(read_file(s.source), r.candidates[*r.best].text);
  EXPECT_NE(read_file(s.source).find("// gpu: compute 0.5"), std::string::npos);
}

TEST(WorkflowOptimize, NothingBetterLeavesTheSourceAsItWasEvenWithApply) {
  FakeGpu gpu;
  auto s = setup("optimize_nothing_better", gpu, {"compute 1.5", "nothing 0.1"});
  s.request.apply = true;
  workflow::Control control;
  const auto r = workflow::run_optimize(s.request, control);
  EXPECT_FALSE(r.best);
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(read_file(s.source), s.original);
  EXPECT_FALSE(fs::exists(s.request.out / "best.patch"));
  EXPECT_EQ(workflow::rejections_by_stage(r), (std::map<std::string, int>{{"correctness", 1}, {"speed", 1}}));
}

// --check-output: the lines it picks must say what the original's said, their numbers within the
// tolerance of the memory comparisons (--rtol, --atol).
TEST(WorkflowOptimize, CheckOutputHoldsTheProgramsNumbersToTheTolerance) {
  for (const double rtol : {0.0, 0.01}) {
    FakeGpu gpu;
    auto s = setup("optimize_check_output", gpu, {"compute 0.5 0.5 sum=100.5"});
    s.request.check_output = "^sum:";
    s.request.compare.rtol = rtol;
    workflow::Control control;
    const auto r = workflow::run_optimize(s.request, control);
    const auto& c = candidate(r, 1);
    if (rtol == 0) {
      EXPECT_EQ(c.stage, "program_output") << c.reason;
      EXPECT_NE(c.reason.find("it printed 'sum: 100.5' where the original printed 'sum: 100'"), std::string::npos) << c.reason;
    } else {
      EXPECT_EQ(c.verdict, "accepted") << c.stage << ": " << c.reason;
    }
  }
}

// Runs two faster, correct candidates with --apply, cancelled at the first verdict whose line holds
// cancel_at ("" for the first of all).
workflow::OptimizeResult run_cancelled(const std::string& name, FakeGpu& gpu, OptimizeSetup& s, const std::string& cancel_at) {
  s = setup(name, gpu, {"compute 0.5", "compute 0.6"});
  s.request.apply = true;
  std::atomic<bool> cancel{false};
  Recorder recorder;
  recorder.cancel = &cancel;
  recorder.cancel_at = cancel_at;
  workflow::Control control(&recorder, &cancel);
  return workflow::run_optimize(s.request, control);
}

// Cancelled at the first verdict: the batch under way ends, nothing more is built, measured or
// confirmed, and the source is not written although the run had a faster, correct candidate.
TEST(WorkflowOptimize, CancelledItConfirmsNothingAndWritesNothingOfTheUsers) {
  FakeGpu gpu;
  OptimizeSetup s;
  const auto r = run_cancelled("optimize_cancel", gpu, s, "");
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.best);
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(read_file(s.source), s.original);
  EXPECT_EQ(gpu.traces, 1) << "the original's profile only: no candidate confirmed in the program";
  for (const auto& c : r.candidates) EXPECT_NE(c.verdict, "accepted") << c.origin;
}

// Cancelled once the first candidate was confirmed in the program: its verdict stands, the second
// is not confirmed, and --apply writes nothing all the same.
TEST(WorkflowOptimize, CancelledAfterAWinnerWasConfirmedApplyStillWritesNothing) {
  FakeGpu gpu;
  OptimizeSetup s;
  const auto r = run_cancelled("optimize_cancel_late", gpu, s, ", accepted");
  EXPECT_TRUE(r.interrupted);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(candidate(r, 1).verdict, "accepted");
  EXPECT_EQ(candidate(r, 2).verdict, "rejected");
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(read_file(s.source), s.original);
  EXPECT_EQ(gpu.traces, 2) << "the original's profile and the first candidate's";
}

// The original itself must pass its oracle: a kernel whose replay differs from its capture is
// refused before any candidate, as not deterministic.
TEST(WorkflowOptimize, AnOriginalThatDoesNotReproduceItsCaptureIsRefused) {
  FakeGpu gpu;
  auto s = setup("optimize_nondeterministic", gpu, {"compute 0.5"});
  write_output_file(s.source, "#include <cstdio>\n\n" + kernel_with("over_nan 1.0"));
  workflow::Control control;
  std::string message;
  EXPECT_EQ(error_code_of([&] { workflow::run_optimize(s.request, control); }, &message), Errc::run_failed);
  EXPECT_NE(message.find("does not reproduce its own captured dispatch"), std::string::npos) << message;
  EXPECT_EQ(read_file(s.source), "#include <cstdio>\n\n" + kernel_with("over_nan 1.0"));
}

}  // namespace
}  // namespace rpl::test
