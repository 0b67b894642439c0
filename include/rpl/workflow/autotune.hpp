#pragma once
// rocm-perf autotune as a library call: a space searched for its fastest configuration, each one
// measured by running the command template (or answered from a recording), the measurements kept in
// a cache scoped to the device and the program, autotune.json written (README "autotune").
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/autotune/process_evaluator.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>
#include <rpl/report/autotune_json.hpp>
#include <rpl/workflow/autotune_slurm.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct AutotuneRequest {
  std::filesystem::path space_file;
  std::string cmd_template;
  std::string build_template;        // empty: none
  std::filesystem::path out_dir;
  std::filesystem::path cache_file;  // default: OUT/cache.db
  bool resume = false;
  std::filesystem::path replay_file; // answer from a measurements CSV (or an earlier run's folder) instead of running anything
  std::filesystem::path csv_file;    // every measurement as CSV ("-": standard output)
  std::vector<std::filesystem::path> warm_start_files;  // earlier runs' folders or measurements CSVs of the same parameters (bayes starts from them)
  bool no_rocprof = false;           // the process's wall time
  std::string backend = "auto";
  std::string kernel;                // the traced kernel whose time counts (default: the dominant one)
  std::string metric_regex;          // a figure the program prints
  bool maximize = false;
  uint64_t seed = 1;
  double seed_fraction = 0.1;
  double prune_factor = 1.75;
  double min_r2 = 0.75;
  std::string budget;                // a count, fraction, percentage or time; empty: the default
  std::string strategy = "bayes";
  size_t batch = 0;                  // 0: autotune::chosen_together's default
  size_t top_k = 5;
  autotune::StabilityPolicy stability;
  double timeout = 0;                // seconds per run or build; 0: none
  std::vector<int> devices;
  std::string device_name;
  SlurmLaunchOptions launch;
  bool keep_runs = false;            // --debug
  autotune::ProgressCallback progress;  // after each measurement (the CLI's progress bar)
};

struct AutotuneResult {
  autotune::SearchSpace space;
  autotune::TuneResult result;
  report::AutotuneSetup setup;
  std::vector<std::string> best_command;
  nlohmann::ordered_json document;   // autotune.json, as written
  std::filesystem::path document_file;
};

/// Bad requests are Error(bad_input) before anything runs. An interrupted search (the control's
/// cancellation token) and one where every configuration failed return normally, the result saying
/// so (result.interrupted, no result.best): the caller decides what that means for it.
AutotuneResult run_autotune(const AutotuneRequest& request, Control& control);

}  // namespace rpl::workflow
