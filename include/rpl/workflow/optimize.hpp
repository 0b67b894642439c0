#pragma once
// rocm-perf optimize as a library call: the guarded loop. Builds the untouched source twice (a deterministic
// rebuild), profiles the program, picks the kernel that holds the critical path, captures its
// dispatch as the oracle, and runs every proposal (unrolled loops, launch bounds, __restrict__,
// --candidate files, a model's answers) through the guards: the source and the parameters it reads,
// the build, spills and occupancy (a pre-filter for unrolled loops, an advisory for the rest),
// correctness on the oracle with the written bytes poisoned by two patterns, compute-sanitizer's
// tools (NVIDIA), speed by alternating replays, and the whole program.
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/profile_diff.hpp>
#include <rpl/backends/run_options.hpp>
#include <rpl/isolate/memory_compare.hpp>
#include <rpl/optimize/builder.hpp>
#include <rpl/optimize/llm_client.hpp>
#include <rpl/optimize/oracle.hpp>
#include <rpl/optimize/resource_guard.hpp>
#include <rpl/optimize/sanitizer.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/model.hpp>
#include <rpl/workflow/control.hpp>
#include <rpl/workflow/isolate.hpp>

namespace rpl::workflow {

/// What the loop reaches compilers, the program and the GPU through. Each one left empty is the
/// real one; tests put doubles in their place that answer as a GPU would.
struct OptimizeSeams {
  /// Builds each (source text, folder) into folder/variant. Default: the request's --build
  /// (optimize::VariantBuilder).
  std::function<std::vector<optimize::BuiltVariant>(const std::vector<std::pair<std::string, std::filesystem::path>>& variants)> build;
  /// The kernel's code object in a build, none where it has none. Default: optimize::kernel_code_object.
  std::function<std::optional<std::string>(const std::filesystem::path& binary, const std::string& arch, const std::string& mangled_name)>
      code_object;
  /// The kernel's registers, spills and occupancy in a build. Default: analysis::inspect_binary.
  std::function<std::optional<analysis::InspectedKernel>(const std::filesystem::path& binary, const analysis::InspectOptions& options)>
      inspect;
  /// Runs the program traced into trace_dir (with run1.log ... of its output) and reads the trace.
  /// Default: rocprofv3 or the CUPTI tracer (vendor "amd" or "nvidia").
  std::function<trace::Trace(const std::string& vendor, const backends::RunOptions& run, const std::filesystem::path& trace_dir)> trace;
  /// Captures one dispatch (the oracles). Default: backends::capture_dispatch.
  CaptureDispatch capture;
  /// Replays a snapshot once and writes the memory after it (optimize::Replayer). Default: the replayer.
  std::function<void(const std::string& vendor, const std::filesystem::path& snapshot, const std::filesystem::path& dump)> replay;
  /// A snapshot's kernel launched `launches` times: the median GPU time, ms. Default: the replayer.
  std::function<double(const std::string& vendor, const std::filesystem::path& snapshot, uint64_t launches)> time_replay;
  /// compute-sanitizer, none where it is not installed. Default: optimize::find_compute_sanitizer.
  std::function<std::optional<std::filesystem::path>()> find_sanitizer;
  /// A snapshot replayed under one of compute-sanitizer's tools: its log. Default: backends::replay_under_sanitizer.
  std::function<std::string(const std::filesystem::path& sanitizer, const std::string& tool, const std::filesystem::path& snapshot)>
      sanitized_replay;
  /// Whether rocprofv3 is installed (--backend auto). Default: backends::find_rocprofv3.
  std::function<bool()> amd_profiler_found;
};

struct OptimizeRequest {
  std::filesystem::path source;
  std::string build;                       // with {SOURCE} and {BINARY}
  std::vector<std::string> program;        // with {BINARY}
  std::string kernel_regex;
  int runs = 3;
  uint64_t dispatch = 1;
  std::vector<std::string> check_args;     // a second command line for the second oracle
  std::filesystem::path out = "rocm-perf-optimize";
  std::string backend = "auto";
  bool unroll = true;
  std::vector<int> unroll_factors = {2, 4, 8};
  bool launch_bounds = true;               // __launch_bounds__ (AMD: amdgpu_*) variants for the captured block
  bool restrict_pointers = true;           // __restrict__ where the oracle shows the pointers apart
  std::set<std::string> allow_unused_params;  // parameters a candidate may stop reading (--allow-unused-param)
  std::vector<std::filesystem::path> candidate_files;
  optimize::LlmEndpoint llm;               // no url: no model
  int llm_rounds = 3;
  int repair_attempts = 2;
  isolate::CompareOptions compare;
  double timeout = 120;                    // a run of the program, or a replay
  double build_timeout = 600;
  int pairs = 5;                           // --iterations: A B pairs of replays
  uint64_t launches = 20;                  // timed launches per replay
  std::string check_output;                // a regex on the program's output lines
  bool apply = false;
  unsigned jobs = 0;                       // parallel builds; 0: one per core
  OptimizeSeams seams;
};

struct CandidateRecord {
  int id = 0;
  std::string kind;        // unroll, launch_bounds, restrict, llm, file
  std::string origin;      // "unroll the loop at line 18 by 4", "LLM round 2, attempt 1", "candidate file x.cu"
  unsigned loop_line = 0;
  int factor = 0, round = 0, attempt = 0;
  std::string file;
  std::string text;        // the whole source file of this variant
  std::string definition;  // the kernel's definition in it
  std::filesystem::path dir;
  std::string verdict = "rejected";  // accepted, rejected
  std::string stage;       // the guard that stopped it; empty when accepted
  std::string reason;
  std::optional<double> build_seconds;
  std::string build_log;
  std::optional<analysis::InspectedKernel> resources;
  std::vector<optimize::ResourceFinding> advisories;  // spills, a lower occupancy: measured, not rejected
  std::optional<bool> correct;
  std::vector<optimize::SanitizerPass> sanitizer;
  std::vector<double> original_ms, candidate_ms;  // median GPU time of each replay, alternating
  std::optional<analysis::SampleChange> replay;
  std::optional<analysis::KernelChange> program_kernel;
  std::optional<analysis::SampleChange> program_critical_path;  // per run, ms
};

struct OracleRecord {
  uint64_t dispatch = 0;
  std::string command;
  std::filesystem::path dir;
  uint64_t poisoned_bytes = 0;
  std::vector<std::string> notes;
  optimize::WrittenBytes written;
};

struct OptimizeResult {
  std::string device, vendor, architecture;
  std::string kernel_name, mangled_name;
  unsigned kernel_line = 0;
  double critical_path_share = 0;
  std::optional<double> amdahl_ceiling;  // none when the kernel is the whole path
  double baseline_build_seconds = 0;
  std::vector<double> baseline_kernel_ms;        // the kernel's time in each profiled run
  std::vector<double> baseline_critical_path_ms; // each run's critical path
  std::optional<analysis::InspectedKernel> baseline_resources;
  std::vector<OracleRecord> oracles;
  size_t oracle_shapes = 0;                      // distinct input shapes among the oracles
  optimize::SanitizerGate sanitizer;            // the compute-sanitizer stage, as the original's replays left it
  std::vector<std::string> refused_loops;        // "line 12: its body calls __syncthreads"
  std::vector<std::string> refused_proposals;    // launch bounds or __restrict__ not proposed, and why
  std::deque<CandidateRecord> candidates;        // a deque: a record stays where it is as more are added
  std::optional<size_t> best;                    // index into candidates
  bool applied = false;
  bool interrupted = false;                      // cancelled: what came after was not measured
  double elapsed_seconds = 0;
  std::vector<std::string> warnings;
};

/// Checks what can be checked before anything runs (Error(bad_input) for a source with no kernel,
/// a build template without {SOURCE} or {BINARY}, a program without {BINARY}, an unreadable
/// candidate, --apply on a file that cannot be written, an LLM server that cannot be reached),
/// then runs the loop. control hears each step (stage events, a line each in message), each
/// candidate's verdict (candidate_verdict) and each warning. Cancelled (control's token), the loop
/// measures nothing more, writes nothing of the user's (with --apply or without) and returns what
/// it measured, interrupted.
OptimizeResult run_optimize(const OptimizeRequest& request, Control& control);

/// "speed 5, correctness 2, compile 1": the rejections counted by the guard that stopped them.
std::map<std::string, int> rejections_by_stage(const OptimizeResult& result);

/// optimize.json (schemas/optimize.schema.json) of a result.
report::Json optimize_document(const OptimizeResult& result, const std::filesystem::path& source);

}  // namespace rpl::workflow
