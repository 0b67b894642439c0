#pragma once
// The state of one optimize run, shared by the files that define its steps:
// optimize_session.cpp (the baseline, the kernel, the oracles, the outcome) and
// optimize_candidates.cpp (each candidate through the guards, the LLM rounds, the confirmation).
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/optimize/builder.hpp>
#include <rpl/optimize/guards.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/oracle.hpp>
#include <rpl/trace/model.hpp>

#include <rpl/workflow/optimize.hpp>

namespace rpl::workflow::optimize_steps {
namespace fs = std::filesystem;

// The function's own name in a demangled kernel name: "void ns::k<4>(float*, int)" -> "k".
std::string base_name(const std::string& demangled);
// The request's seams, each left empty filled with the real one (optimize_seams.cpp).
OptimizeSeams with_real_seams(const OptimizeRequest& request);
// The program's arguments with {BINARY} replaced by binary.
std::vector<std::string> with_binary(const std::vector<std::string>& program, const fs::path& binary);

// One traced profile of the program built into binary.
struct ProgramProfile {
  trace::Trace trace;
  analysis::DagResult dag;
  std::vector<double> critical_path_ms;  // each run's
  fs::path folder;
};

class Session {
 public:
  Session(const OptimizeRequest& o, Control& control);

  OptimizeResult run();

 private:
  void check_inputs();
  void build_baseline();
  ProgramProfile profile(const fs::path& binary, const fs::path& folder);
  void write_documents(const ProgramProfile& p);
  void choose_kernel(const ProgramProfile& p);
  void capture_oracles();
  void sanitize_original();
  void propose_initial();
  void propose_rules(std::vector<CandidateRecord*>& batch);
  void evaluate(std::vector<CandidateRecord*> batch);
  void check_source(CandidateRecord& c);
  bool check_code(CandidateRecord& c, const fs::path& binary);
  bool check_resources(CandidateRecord& c);
  bool check_oracles(CandidateRecord& c, const std::string& code);
  bool sanitize(CandidateRecord& c, const std::string& code);
  std::optional<analysis::InspectedKernel> inspect_kernel(const fs::path& binary) const;
  void time_replays(CandidateRecord& c);
  void llm_rounds();
  std::string earlier_verdicts() const;
  void confirm(CandidateRecord& c, const optimize::BuiltVariant& again);
  void finish();

  CandidateRecord& add_candidate(std::string kind, std::string origin, std::string text);
  void reject(CandidateRecord& c, std::string stage, std::string reason);
  void report(const CandidateRecord& c);
  // A step's line for the observer: what is being done, or what a step found.
  void say(EventKind kind, const std::string& stage, const std::string& line) const { control_.emit({kind, stage, line}); }
  bool cancelled() const;
  std::vector<optimize::BuiltVariant> build_all(const std::vector<std::pair<std::string, fs::path>>& variants) const;
  std::optional<std::string> code_object(const fs::path& binary) const;
  optimize::Replayer replayer() const;
  optimize::SanitizedReplayer sanitized_replayer(const fs::path& sanitizer) const;
  double time_replay(const fs::path& snapshot) const;
  std::string vendor_backend() const { return out_.vendor == "amd" ? "rocm" : "cuda"; }

  const OptimizeRequest& o_;
  Control& control_;
  OptimizeSeams seams_;  // the request's, the empty ones filled with the real
  OptimizeResult out_;
  fs::path out_dir_, work_;
  optimize::KernelSource source_;
  const optimize::KernelDefinition* kernel_ = nullptr;
  fs::path baseline_binary_;
  std::string baseline_code_;   // the kernel's code object in the baseline build
  std::vector<isolate::Snapshot> snapshots_;
  analysis::ProfileTimes baseline_times_;
  std::string baseline_output_;  // the first run's lines that --check-output picks
  std::set<std::string> seen_texts_;
  std::map<int, optimize::GuardVerdict> parameters_read_;  // by candidate id: the ignores_parameter guard's verdict
  std::vector<fs::path> timing_dirs_;  // per oracle: the snapshot with the baseline's code object
};

}  // namespace rpl::workflow::optimize_steps
