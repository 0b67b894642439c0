#pragma once
// Measures a configuration by running the command template's program: the dominant kernel's time
// from a trace (the profile backends), the whole process's wall time, or a figure the program
// prints. An optional build template runs first, its outputs kept per hash of its inputs.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rpl/autotune/command_template.hpp>
#include <rpl/backends/slurm.hpp>
#include <rpl/autotune/measurement.hpp>
#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

enum class Objective { kernel_time, process_time, printed_metric };

struct ProcessEvaluatorOptions {
  Objective objective = Objective::kernel_time;
  std::string backend;                     // kernel_time: "cuda" or "rocm"
  std::optional<std::string> kernel_regex; // kernel_time: which kernel (default: the dominant one)
  std::string metric_regex;                // printed_metric: each match's first group (or the match) is a sample
  CommandTemplate command;
  CommandTemplate build;                   // may be empty; {BUILD_DIR} is its configuration's output folder
  StabilityPolicy stability;
  std::optional<double> timeout_seconds;   // per program run and per build
  /// Per worker, the environment that gives it its GPU (CUDA_VISIBLE_DEVICES=N ...).
  std::vector<std::vector<std::pair<std::string, std::string>>> worker_env{{}};
  std::filesystem::path work_dir;          // runs/ (temporary) and builds/ go here
  bool keep_runs = false;                  // --debug: keep every run's folder
  /// With an allocation, every run (and every build unless build_local) is a job step of it, and
  /// work_dir is on storage its nodes share. A step that Slurm ends is tried again up to
  /// step_retries times, on another node while one is left, then recorded as node_failed.
  std::shared_ptr<backends::SlurmAllocation> slurm;
  bool build_local = false;
  int step_retries = 2;
};

/// Which kernel a kernel_time objective measured, over this evaluator's runs.
struct KernelTally {
  std::string kernel;          // without --kernel: its function name (empty until a run fixes it); with
                               // --kernel: the function it chose, where every run chose the same
  size_t runs = 0;             // program runs it was measured in
  size_t not_dominant = 0;     // without --kernel: runs where another kernel took more GPU time
  std::string first_dominant;  // that other kernel the first time, its short name
  size_t several_matched = 0;  // with --kernel: runs where it matched kernels of several functions
  std::string first_matched;   // those kernels the first time, their short names
};

/// The placeholder of a configuration's build folder.
inline constexpr const char* kBuildDirPlaceholder = "BUILD_DIR";

/// Error(bad_input) for a placeholder that is no name of the space (or {BUILD_DIR} without a build
/// template), and for a parameter neither template uses.
void check_placeholders(const SearchSpace& space, const CommandTemplate& command, const CommandTemplate& build);

class ProcessEvaluator : public Evaluator {
 public:
  /// Error(bad_input) for a placeholder no parameter has, a parameter no template uses, a
  /// program that does not exist, a bad metric regex; Error(missing_tool) when the backend
  /// cannot run here.
  ProcessEvaluator(const SearchSpace& space, ProcessEvaluatorOptions options);
  ~ProcessEvaluator() override;
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) override;
  /// kernel_time without --kernel, until a run has fixed the kernel.
  bool next_measurement_fixes_the_objective() const override;
  /// What the measured program is: a digest of the program and of the files the templates name
  /// literally (for the cache key; with a build template, of its literal inputs).
  const std::string& program_digest() const;
  /// kernel_time without --kernel: the kernel's function name fixed by an earlier run of the same
  /// scope (the cache keeps it), and whom to tell when this run fixes it. Not for --kernel.
  void remember_kernel(std::optional<std::string> function, std::function<void(const std::string&)> fixed);
  KernelTally kernel_tally() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rpl::autotune
