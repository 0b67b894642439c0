#pragma once
// autotune.json (schemas/autotune.schema.json) and the human summary of a tuning run.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>

namespace rpl::report {

/// Where the steps of a --launcher slurm run went.
struct SlurmSetup {
  std::string job_id;
  std::vector<std::string> nodes;
  int workers = 1;
  int gpus_per_step = 1;
  std::string shared_dir;
  std::string builds;      // "step" or "local"
  int retries = 2;
  size_t steps = 0;        // job steps started
  size_t steps_lost = 0;   // of them, ended by Slurm rather than by their program
};

/// What the run was asked to do, as the document reports it.
struct AutotuneSetup {
  std::string space_file;
  std::string command_template;
  std::string build_template;        // empty when none
  std::string objective;             // kernel_time, process_time, printed_metric
  std::string unit;                  // ms, or "" for a printed figure
  bool maximize = false;
  std::string selector;              // the --kernel or --metric-regex, when given
  std::string kernel;                // kernel_time without --kernel: the function name measured
  std::string device;
  std::vector<int> devices;          // --devices, empty for the default one
  std::optional<SlurmSetup> slurm;   // --launcher slurm
  std::string cache_file;            // empty with --replay
  std::optional<double> budget_seconds;  // --budget as a time
  std::vector<std::string> warm_start_files;  // --warm-start, in the order given; empty when none
  size_t warm_start_configurations = 0;       // the configurations of this space that succeeded in one of them
  size_t warm_start_failed = 0;               // those that failed there and succeeded in none (not proposed while others are left)
  std::vector<std::string> warnings; // the CLI's own (cache entries of other devices, ...)
};

nlohmann::ordered_json autotune_json(const autotune::SearchSpace& space, const autotune::TuneResult& result,
                                     const AutotuneSetup& setup, const std::vector<std::string>& best_command);

std::string autotune_text(const autotune::SearchSpace& space, const autotune::TuneResult& result, const AutotuneSetup& setup,
                          const std::vector<std::string>& best_command);

}  // namespace rpl::report
