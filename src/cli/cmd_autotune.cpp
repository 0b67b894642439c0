// rocm-perf autotune --space F --cmd-template T [opts]
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include <rpl/autotune/budget.hpp>
#include <rpl/autotune/command_template.hpp>
#include <rpl/autotune/process_evaluator.hpp>
#include <rpl/autotune/recording.hpp>
#include <rpl/autotune/result_cache.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>
#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/run_options.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/report/autotune_json.hpp>
#include <rpl/report/json_documents.hpp>

#include "autotune_slurm.hpp"
#include "commands.hpp"
#include "tune_progress.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
namespace {

struct AutotuneOptions {
  OutputOptions output;
  std::string space_file;
  std::string cmd_template;
  std::string build_template;
  std::string out_dir = "rocm-perf-autotune";
  std::string cache_file;
  std::string replay_file;
  std::string csv_file;
  bool resume = false;
  bool no_rocprof = false;
  std::string backend = "auto";
  std::string kernel;
  std::string metric_regex;
  bool minimize = false;
  bool maximize = false;
  uint64_t seed = 1;
  double seed_fraction = 0.1;
  double prune_factor = 1.75;
  double min_r2 = 0.75;
  std::string budget;
  std::string strategy = "bayes";
  size_t batch = 1;
  size_t top_k = 5;
  autotune::StabilityPolicy stability;
  double timeout = 0;
  std::vector<int> devices;
  std::string device_name;
  SlurmLaunchOptions launch;
};

// The GPU the workers run on, named by the driver (NVIDIA) or by --device-name.
std::string device_identity(const AutotuneOptions& o, std::vector<std::string>& warnings) {
  if (!o.device_name.empty()) return o.device_name;
  std::vector<int> ordinals = o.devices.empty() ? std::vector<int>{0} : o.devices;
  std::optional<std::string> first;
  for (int d : ordinals) {
    auto name = backends::nvidia_device_name(d);
    if (!name) {
      if (!o.devices.empty() && backends::nvidia_device_name(0)) fail(Errc::bad_input, "--devices: there is no NVIDIA GPU {}", d);
      break;
    }
    if (first && *name != *first) {
      fail(Errc::bad_input, "--devices: GPU {} is a {} but GPU {} a {}: tune on one kind of GPU at a time", ordinals.front(),
           *first, d, *name);
    }
    first = name;
  }
  if (first) return *first;
  warnings.push_back("device_unnamed: the GPU's name is unknown here; give --device-name so that the cache keeps devices apart");
  return "unnamed device";
}

}  // namespace

Action add_autotune_command(CLI::App& app) {
  auto o = std::make_shared<AutotuneOptions>();
  auto* cmd = app.add_subcommand("autotune", "search a space of launch or build parameters for the fastest configuration");
  add_output_options(*cmd, o->output, true);
  cmd->add_option("--space", o->space_file, "the search space (JSON: parameters, derived features, constraints)")->required();
  cmd->add_option("--cmd-template", o->cmd_template, "the command to measure, with {NAME} placeholders (no shell runs it)")
      ->required();
  cmd->add_option("--build-template", o->build_template,
                  "a build command run first for each configuration; {BUILD_DIR} is its output folder, kept per hash of "
                  "the build's inputs");
  cmd->add_option("--out", o->out_dir, "output folder (autotune.json, the cache, builds)")->capture_default_str();
  cmd->add_option("--cache", o->cache_file, "the measurement cache (default OUT/cache.db)");
  cmd->add_flag("--resume", o->resume, "continue an interrupted run of the same space and templates from the cache");
  cmd->add_option("--replay", o->replay_file, "answer from a measurements CSV (of --csv) instead of running anything");
  cmd->add_option("--csv", o->csv_file, "write every measurement to this CSV file (- for stdout)");
  cmd->add_flag("--no-rocprof", o->no_rocprof, "measure the whole process's wall time instead of the kernel's");
  cmd->add_option("--backend", o->backend, "auto, rocm or cuda")->check(CLI::IsMember({"auto", "rocm", "cuda"}))->capture_default_str();
  cmd->add_option("--kernel", o->kernel, "regular expression choosing the kernel whose time counts (default: the dominant one)");
  cmd->add_option("--metric-regex", o->metric_regex,
                  "measure a figure the program prints: each match's first group (or the match) is a sample");
  auto* min_flag = cmd->add_flag("--minimize", o->minimize, "with --metric-regex: smaller is better (the default)");
  cmd->add_flag("--maximize", o->maximize, "with --metric-regex: larger is better (GFLOP/s)")->excludes(min_flag);
  cmd->add_option("--seed", o->seed, "seed of the random sample")->capture_default_str();
  cmd->add_option("--seed-fraction", o->seed_fraction, "model: fraction of the space measured first (at least 10 configurations, at most half the budget)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--prune-factor", o->prune_factor, "keep configurations predicted within this factor of the best measured")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--min-r2", o->min_r2, "cross-validated R² under which the model is not trusted")
      ->check(CLI::Range(-1e9, 1.0))
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "configurations to measure at most: a count, a fraction or a percentage (default 20%), or a "
                                       "time (90s, 20m, 1h30m) after which none is started");
  cmd->add_option("--strategy", o->strategy, "bayes (a Gaussian process and expected improvement), model (a quadratic model and a "
                                             "prune) or random")
      ->check(CLI::IsMember({"bayes", "model", "random"}))
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "bayes: configurations chosen together between fits (the number of --devices keeps them busy)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--top-k", o->top_k, "how many of the best to report")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--max-cv", o->stability.max_cv, "repeat until the coefficient of variation is within this")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--min-samples", o->stability.min_samples, "samples needed before a measurement may stop")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--max-runs", o->stability.max_runs, "program runs per configuration at most")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--max-seconds", o->stability.max_seconds, "seconds per configuration at most (then it stops repeating)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds one run (or build) may take before its process group is killed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--devices", o->devices, "GPUs to run on at once, one worker each (e.g. 0,1)")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
  cmd->add_option("--device-name", o->device_name, "the device's name in the cache (default: the driver's name of the GPU)");
  add_slurm_options(*cmd, o->launch);

  return [o, cmd]() -> int {
    log::set_debug(o->output.debug);
    if ((o->minimize || o->maximize) && o->metric_regex.empty()) {
      fail(Errc::bad_input, "--minimize and --maximize choose the direction of a --metric-regex figure; times are minimized");
    }
    if (!o->metric_regex.empty() && o->no_rocprof) fail(Errc::bad_input, "--metric-regex and --no-rocprof exclude each other");
    if (!o->kernel.empty() && (o->no_rocprof || !o->metric_regex.empty())) {
      fail(Errc::bad_input, "--kernel chooses a traced kernel; it does not apply with --no-rocprof or --metric-regex");
    }
    std::vector<int> seen = o->devices;
    std::sort(seen.begin(), seen.end());
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) fail(Errc::bad_input, "--devices lists a GPU twice");
    if (o->resume && !o->replay_file.empty()) fail(Errc::bad_input, "--resume and --replay exclude each other");
    check_slurm_options(*cmd, o->launch, !o->devices.empty(), !o->replay_file.empty());

    const auto space = autotune::load_search_space(o->space_file);
    autotune::TuneOptions options;
    options.seed = o->seed;
    options.seed_fraction = o->seed_fraction;
    options.prune_factor = o->prune_factor;
    options.min_r2 = o->min_r2;
    options.top_k = o->top_k;
    options.maximize = o->maximize;
    options.workers = o->launch.slurm() ? o->launch.workers : o->devices.empty() ? 1 : static_cast<int>(o->devices.size());
    autotune::apply_budget(o->budget, options);
    options.strategy = *autotune::strategy_from_name(o->strategy);
    options.batch = o->batch;

    autotune::ProcessEvaluatorOptions eval;
    eval.command = autotune::CommandTemplate(o->cmd_template, "--cmd-template");
    if (!o->build_template.empty()) eval.build = autotune::CommandTemplate(o->build_template, "--build-template");
    report::AutotuneSetup setup;
    setup.space_file = o->space_file;
    setup.command_template = o->cmd_template;
    setup.build_template = o->build_template;
    setup.maximize = o->maximize;
    setup.budget_seconds = options.time_budget_seconds;
    if (!o->metric_regex.empty()) {
      eval.objective = autotune::Objective::printed_metric;
      eval.metric_regex = o->metric_regex;
      setup.objective = "printed_metric";
      setup.selector = o->metric_regex;
    } else if (o->no_rocprof) {
      eval.objective = autotune::Objective::process_time;
      setup.objective = "process_time";
      setup.unit = "ms";
    } else {
      eval.objective = autotune::Objective::kernel_time;
      setup.objective = "kernel_time";
      setup.unit = "ms";
      setup.selector = o->kernel;
      if (!o->kernel.empty()) eval.kernel_regex = o->kernel;
    }
    eval.stability = o->stability;
    if (o->timeout > 0) eval.timeout_seconds = o->timeout;
    eval.keep_runs = o->output.debug;
    eval.worker_env.clear();
    for (int w = 0; w < options.workers; ++w) {
      if (o->devices.empty()) {
        eval.worker_env.push_back({});
      } else {
        const std::string d = std::to_string(o->devices[static_cast<size_t>(w)]);
        eval.worker_env.push_back({{"CUDA_VISIBLE_DEVICES", d}, {"HIP_VISIBLE_DEVICES", d}});
      }
    }
    setup.devices = o->devices;

    const fs::path out_dir = o->out_dir;
    create_output_folder(out_dir);
    eval.work_dir = out_dir;
    const std::string shared_dir = o->launch.shared_dir.empty() ? out_dir.string() : o->launch.shared_dir;
    if (o->launch.slurm()) {
      create_output_folder(shared_dir);
      eval.work_dir = shared_dir;
      eval.slurm = prepare_slurm(o->launch);
      eval.build_local = o->launch.build_where == "local";
      eval.step_retries = o->launch.retries;
    }
    // Opened now: a CSV path that cannot be written fails before the first measurement.
    std::optional<OutputFile> csv;
    if (!o->csv_file.empty()) {
      if (is_standard_output(o->csv_file) && (o->output.json || o->output.quiet)) {
        fail(Errc::bad_input, "--csv {} and --json or --quiet all write to stdout; give --csv a file", o->csv_file);
      }
      csv.emplace(o->csv_file);
    }

    std::optional<StopSignals> signals;
    std::unique_ptr<autotune::Evaluator> evaluator;
    std::unique_ptr<autotune::MeasurementStore> store;
    std::unique_ptr<autotune::ResultCache> cache;
    autotune::CacheScope scope;
    std::string run_key;
    if (!o->replay_file.empty()) {
      autotune::check_placeholders(space, eval.command, eval.build);  // as the live run would
      size_t unknown = 0;
      auto recorded = autotune::read_measurements_csv(o->replay_file, space, unknown);
      if (unknown) setup.warnings.push_back(fmt::format("replay_rows_outside_space: {} rows of {} are no configuration of the space", unknown, o->replay_file));
      evaluator = std::make_unique<autotune::RecordedEvaluator>(std::move(recorded));
      store = std::make_unique<autotune::NullStore>();
      setup.device = "replay of " + o->replay_file;
    } else {
      if (eval.objective == autotune::Objective::kernel_time) {
        eval.backend = o->backend == "auto" ? backends::choose_trace_backend() : o->backend;
      }
      auto process = std::make_unique<autotune::ProcessEvaluator>(space, eval);
      if (eval.slurm) {
        signals.emplace();  // Ctrl-C while the allocation is pending cancels it
        const auto gpu = start_slurm(*eval.slurm, shared_dir, active_stop_flag());
        setup.device = !o->device_name.empty() ? o->device_name : gpu.value_or("");
        if (setup.device.empty()) {
          setup.device = "unnamed device";
          setup.warnings.push_back("device_unnamed: the nodes' GPU has no name here; give --device-name so that the cache keeps "
                                   "devices apart");
        }
      } else {
        setup.device = device_identity(*o, setup.warnings);
      }
      scope.device = setup.device;
      scope.program = process->program_digest();
      scope.templates = o->cmd_template + "\n" + o->build_template;
      scope.objective = setup.objective + ":" + setup.selector + (o->maximize ? ":max" : "");
      const fs::path cache_file = o->cache_file.empty() ? out_dir / "cache.db" : fs::path(o->cache_file);
      cache = std::make_unique<autotune::ResultCache>(cache_file);
      setup.cache_file = cache_file.string();
      run_key = scope.templates + "\n" + scope.objective + "\n" + space.digest() +
                fmt::format("\n{} {} {} {} {} {} {} {}", o->seed, o->seed_fraction, o->prune_factor, o->min_r2, o->budget, options.top_k,
                            o->strategy, o->batch);
      const auto previous = cache->find_run(run_key);
      if (o->resume) {
        if (!previous) {
          fail(Errc::bad_input, "--resume: {} holds no run of this space, these templates and options to resume",
               cache_file.string());
        }
        if (previous->device != scope.device) {
          fail(Errc::bad_input, "--resume: {} was written on {}, but this is {}; give another --cache", cache_file.string(),
               previous->device, scope.device);
        }
        if (previous->program != scope.program) {
          fail(Errc::bad_input, "--resume: the program or the files the templates name changed since {} was written; give "
                                "another --cache or drop --resume to measure again",
               cache_file.string());
        }
      }
      if (size_t others = cache->count_other_scopes(scope)) {
        setup.warnings.push_back(fmt::format("cache_other_scope: {} measurements of these templates in {} were made on another "
                                             "device or program; they are not reused",
                                             others, cache_file.string()));
      }
      cache->record_run(run_key, scope, "running");
      store = std::make_unique<autotune::CachedMeasurements>(*cache, scope, space);
      evaluator = std::move(process);
    }

    TuneProgressView view(!o->output.quiet, setup.unit);
    autotune::TuneResult result;
    if (!signals) signals.emplace();
    result = autotune::tune(space, *evaluator, *store, options, [&](const autotune::TuneProgress& p) { view.update(p); },
                            active_stop_flag());
    signals.reset();
    view.finish();
    if (eval.slurm) {
      eval.slurm->cancel();  // every step has ended; the allocation is not needed any more
      setup.slurm = slurm_setup(o->launch, *eval.slurm, shared_dir);
    }
    if (cache && !result.interrupted) cache->record_run(run_key, scope, "finished");

    std::vector<std::string> best_command;
    if (result.best) {
      best_command = eval.command.instantiate([&](const std::string& name) {
        return name == autotune::kBuildDirPlaceholder ? std::string("{BUILD_DIR}") : space.text(*result.best, name).value_or("");
      });
    }
    const auto document = report::autotune_json(space, result, setup, best_command);
    write_output_file(out_dir / "autotune.json", report::dump(document));
    if (csv) {
      csv->stream() << autotune::measurements_csv(space, result);
      csv->commit();
    }

    if (o->output.json) {
      std::cout << report::dump(document);
    } else if (o->output.quiet) {
      if (result.best) std::cout << fmt::format("{}", report::round6(result.best_value)) << "\n";
    } else {
      (csv && is_standard_output(o->csv_file) ? std::cerr : std::cout) << report::autotune_text(space, result, setup, best_command);
      for (const auto& w : document["warnings"]) std::cerr << "warning: " << w.get<std::string>() << "\n";
    }
    if (result.interrupted) {
      fail(Errc::run_failed, "interrupted after {} measurements, all kept in {}: run the same command with --resume to go on",
           result.measured.size(), setup.cache_file.empty() ? std::string("memory") : setup.cache_file);
    }
    if (!result.best) {
      std::string counts;
      for (const auto& [kind, n] : result.failures()) {
        if (n) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, autotune::failure_name(kind));
      }
      fail(Errc::run_failed, "every configuration measured failed ({}); see {}", counts, (out_dir / "autotune.json").string());
    }
    return 0;
  };
}

}  // namespace rpl::cli
