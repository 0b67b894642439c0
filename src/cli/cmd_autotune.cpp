// rocm-perf autotune --space F --cmd-template T [opts]: parses, calls workflow::run_autotune with
// the progress bar as its observer, prints.
#include <iostream>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/report/autotune_json.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/workflow/autotune.hpp>

#include "commands.hpp"
#include "slurm_options.hpp"
#include "tune_progress.hpp"

namespace rpl::cli {
namespace {

struct AutotuneOptions {
  OutputOptions output;
  workflow::AutotuneRequest request;
  std::string space_file, out_dir = "rocm-perf-autotune", cache_file, replay_file, csv_file;
  std::vector<std::string> warm_start_files;
  bool minimize = false;
};

}  // namespace

Action add_autotune_command(CLI::App& app) {
  auto o = std::make_shared<AutotuneOptions>();
  auto* cmd = app.add_subcommand("autotune", "search a space of launch or build parameters for the fastest configuration");
  add_output_options(*cmd, o->output, true);
  cmd->add_option("--space", o->space_file, "the search space (JSON: parameters, derived features, constraints)")->required();
  cmd->add_option("--cmd-template", o->request.cmd_template, "the command to measure, with {NAME} placeholders (no shell runs it)")
      ->required();
  cmd->add_option("--build-template", o->request.build_template,
                  "a build command run first for each configuration; {BUILD_DIR} is its output folder, kept per hash of "
                  "the build's inputs");
  cmd->add_option("--out", o->out_dir, "output folder (autotune.json, the cache, builds)")->capture_default_str();
  cmd->add_option("--cache", o->cache_file, "the measurement cache (default OUT/cache.db)");
  cmd->add_flag("--resume", o->request.resume, "continue an interrupted run of the same space and templates from the cache");
  cmd->add_option("--replay", o->replay_file,
                  "answer from an earlier run's measurements (its --out folder or --csv) instead of running anything");
  cmd->add_option("--csv", o->csv_file, "write every measurement to this CSV file (- for stdout)");
  cmd->add_option("--warm-start", o->warm_start_files,
                  "start from an earlier run of the same parameters (its --out folder or --csv; another size or GPU): its best is the first "
                  "seed and its landscape the model's prior (bayes); again for more runs, the nearest first: each run's best a seed")
      ->allow_extra_args(false);
  cmd->add_flag("--no-rocprof", o->request.no_rocprof, "measure the whole process's wall time instead of the kernel's");
  cmd->add_option("--backend", o->request.backend, "auto, rocm or cuda")->check(CLI::IsMember({"auto", "rocm", "cuda"}))->capture_default_str();
  cmd->add_option("--kernel", o->request.kernel, "regular expression choosing the kernel whose time counts (default: the dominant one)");
  cmd->add_option("--metric-regex", o->request.metric_regex,
                  "measure a figure the program prints: each match's first group (or the match) is a sample");
  auto* min_flag = cmd->add_flag("--minimize", o->minimize, "with --metric-regex: smaller is better (the default)");
  cmd->add_flag("--maximize", o->request.maximize, "with --metric-regex: larger is better (GFLOP/s)")->excludes(min_flag);
  cmd->add_option("--seed", o->request.seed, "seed of the random sample")->capture_default_str();
  cmd->add_option("--seed-fraction", o->request.seed_fraction, "model: fraction of the space measured first (at least 10 configurations, at most half the budget)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--prune-factor", o->request.prune_factor, "keep configurations predicted within this factor of the best measured")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--min-r2", o->request.min_r2, "cross-validated R² under which the model is not trusted")
      ->check(CLI::Range(-1e9, 1.0))
      ->capture_default_str();
  cmd->add_option("--budget", o->request.budget, "configurations to measure at most: a count, a fraction or a percentage (default 20%), or a "
                                       "time (90s, 20m, 1h30m) for the whole run: the search leaves room to re-measure the best")
      ->check([](const std::string& text) { return text.empty() ? "empty: give a count, a fraction, a percentage or a time" : ""; });
  cmd->add_option("--strategy", o->request.strategy, "bayes (a Gaussian process guiding a local search), model (a quadratic model and a "
                                             "prune) or random")
      ->check(CLI::IsMember({"bayes", "model", "random"}))
      ->capture_default_str();
  cmd->add_option("--batch", o->request.batch, "bayes: configurations chosen together between fits (default 1; under a time budget, one per "
                                          "--devices or Slurm worker, which keeps them busy)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--top-k", o->request.top_k, "how many of the best to report")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--max-cv", o->request.stability.max_cv, "repeat until the coefficient of variation is within this")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--min-samples", o->request.stability.min_samples, "samples needed before a measurement may stop")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--max-runs", o->request.stability.max_runs, "program runs per configuration at most")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--max-seconds", o->request.stability.max_seconds, "seconds per configuration at most (then it stops repeating)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--timeout", o->request.timeout, "seconds one run (or build) may take before its process group is killed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--devices", o->request.devices, "GPUs to run on at once, one worker each (e.g. 0,1)")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  cmd->add_option("--device-name", o->request.device_name, "the device's name in the cache (default: the driver's name of the GPU)");
  add_slurm_options(*cmd, o->request.launch);

  return [o, cmd]() -> int {
    log::set_debug(o->output.debug);
    auto& request = o->request;
    if ((o->minimize || request.maximize) && request.metric_regex.empty()) {
      fail(Errc::bad_input, "--minimize and --maximize choose the direction of a --metric-regex figure; times are minimized");
    }
    check_slurm_options(*cmd, request.launch);
    if (!o->csv_file.empty() && is_standard_output(o->csv_file) && (o->output.json || o->output.quiet)) {
      fail(Errc::bad_input, "--csv {} and --json or --quiet all write to stdout; give --csv a file", o->csv_file);
    }
    request.space_file = o->space_file;
    request.out_dir = o->out_dir;
    request.cache_file = o->cache_file;
    request.replay_file = o->replay_file;
    request.csv_file = o->csv_file;
    request.warm_start_files.assign(o->warm_start_files.begin(), o->warm_start_files.end());
    request.keep_runs = o->output.debug;
    StopSignals stop;  // Ctrl-C ends the search at a measurement boundary (or cancels a pending allocation)
    TuneProgressView view(!o->output.quiet, request.metric_regex.empty() ? "ms" : "");
    request.progress = [&](const autotune::TuneProgress& p) { view.update(p); };
    workflow::Control control(nullptr, active_stop_flag());
    const auto r = workflow::run_autotune(request, control);
    view.finish();
    const auto& result = r.result;
    if (o->output.json) {
      std::cout << report::dump(r.document);
    } else if (o->output.quiet) {
      if (result.best) std::cout << fmt::format("{}", report::round6(result.best_value)) << "\n";
    } else {
      (!o->csv_file.empty() && is_standard_output(o->csv_file) ? std::cerr : std::cout) << report::autotune_text(r.space, result, r.setup, r.best_command);
      for (const auto& w : r.document["warnings"]) std::cerr << "warning: " << w.get<std::string>() << "\n";
    }
    if (result.interrupted) {
      fail(Errc::run_failed, "interrupted after {} measurements, all kept in {}: run the same command with --resume to go on",
           result.measured.size(), r.setup.cache_file.empty() ? std::string("memory") : r.setup.cache_file);
    }
    if (!result.best) {
      std::string counts;
      for (const auto& [kind, n] : result.failures()) {
        if (n) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, autotune::failure_name(kind));
      }
      fail(Errc::run_failed, "every configuration measured failed ({}); see {}", counts, r.document_file.string());
    }
    return 0;
  };
}

}  // namespace rpl::cli
