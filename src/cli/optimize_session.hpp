#pragma once
// rocm-perf optimize: the guarded loop. Builds the untouched source twice (a deterministic
// rebuild), profiles the program, picks the kernel that holds the critical path, captures its
// dispatch as the oracle, and runs every proposal (unrolled loops, launch bounds, __restrict__,
// --candidate files, a model's answers) through the guards: the source and the parameters it reads,
// the build, spills and occupancy (a pre-filter for unrolled loops, an advisory for the rest),
// correctness on the oracle with the written bytes poisoned by two patterns, compute-sanitizer's
// tools (NVIDIA), speed by alternating replays, and the whole program.
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/profile_diff.hpp>
#include <rpl/isolate/memory_compare.hpp>
#include <rpl/optimize/llm_client.hpp>
#include <rpl/optimize/oracle.hpp>
#include <rpl/optimize/resource_guard.hpp>
#include <rpl/optimize/sanitizer.hpp>

namespace rpl::cli {

struct OptimizeOptions {
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

struct OptimizeOutcome {
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
  double elapsed_seconds = 0;
  std::vector<std::string> warnings;
};

/// Checks what can be checked before anything runs (Error(bad_input) for a source with no kernel,
/// a build template without {SOURCE} or {BINARY}, a program without {BINARY}, an unreadable
/// candidate, --apply on a file that cannot be written, an LLM server that cannot be reached),
/// then runs the loop. progress is told each step's line and each candidate's verdict.
OptimizeOutcome run_optimization(const OptimizeOptions& options, const std::function<void(const std::string&)>& progress);

}  // namespace rpl::cli
