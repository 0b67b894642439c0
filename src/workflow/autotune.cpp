#include <rpl/workflow/autotune.hpp>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include <rpl/autotune/budget.hpp>
#include <rpl/autotune/command_template.hpp>
#include <rpl/autotune/recording.hpp>
#include <rpl/autotune/result_cache.hpp>
#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/run_options.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
namespace {

void check_request(const AutotuneRequest& o) {
  if (!o.metric_regex.empty() && o.no_rocprof) fail(Errc::bad_input, "--metric-regex and --no-rocprof exclude each other");
  if (!o.kernel.empty() && (o.no_rocprof || !o.metric_regex.empty())) {
    fail(Errc::bad_input, "--kernel chooses a traced kernel; it does not apply with --no-rocprof or --metric-regex");
  }
  std::vector<int> seen = o.devices;
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) fail(Errc::bad_input, "--devices lists a GPU twice");
  if (o.resume && !o.replay_file.empty()) fail(Errc::bad_input, "--resume and --replay exclude each other");
  check_slurm_launch(o.launch, !o.devices.empty(), !o.replay_file.empty());
  if (!o.warm_start_files.empty() && o.strategy != "bayes") {
    fail(Errc::bad_input, "--warm-start guides the bayes strategy only; drop --strategy {} or --warm-start", o.strategy);
  }
}

// Every run leaves its measurements in its folder, so that a later run can start from it or replay
// it by naming the folder alone.
constexpr const char* kMeasurementsFile = "measurements.csv";

// The measurements CSV an option names: the file itself, or an earlier run's output folder. Not
// one this run writes (OUT/measurements.csv, --csv): it would replace what it reads.
fs::path measurements_file(const fs::path& given, const char* option, const AutotuneRequest& o) {
  std::error_code ec;
  fs::path file = given;
  if (fs::is_directory(given, ec)) {
    file = given / kMeasurementsFile;
    if (!fs::exists(file, ec)) {
      fail(Errc::bad_input, "{} {}: a folder without {}; give an autotune output folder or a measurements CSV (of --csv)", option,
           given.string(), kMeasurementsFile);
    }
  }
  // As export's check: false where either file does not exist yet, true through links of any kind.
  const auto same = [&](const fs::path& written) { return fs::equivalent(file, written, ec); };
  if (same(o.out_dir / kMeasurementsFile) || (!o.csv_file.empty() && o.csv_file != "-" && same(o.csv_file))) {
    fail(Errc::bad_input, "{} {}: this run would write over it; give another --out or --csv", option, given.string());
  }
  return file;
}

// Earlier runs' measurements (each a folder or --csv) as the warm start, in the order given
// (autotune::add_earlier_run): of each, the configurations of this space that succeeded in it (ties
// in the space's order, so that the same files give the same run), and those that failed in it in a
// way the configuration itself causes (it did not build, launch or finish: out of registers or
// shared memory, a tile the code does not allow), which another size or device repeats, unlike a
// timeout, an unstable figure or a lost node.
void read_warm_start(const AutotuneRequest& o, const autotune::SearchSpace& space, autotune::TuneOptions& options,
                     report::AutotuneSetup& setup) {
  for (const auto& given : o.warm_start_files) {
    const fs::path file = measurements_file(given, "--warm-start", o);
    size_t unknown = 0;
    std::vector<std::pair<size_t, double>> costs;
    std::vector<size_t> failures;
    for (const auto& [c, m] : autotune::read_measurements_csv(file, space, unknown)) {
      if (m.ok()) costs.emplace_back(c, o.maximize ? 1 / m.value : m.value);
      else if (m.failure == autotune::Failure::build_failed || m.failure == autotune::Failure::launch_failed ||
               m.failure == autotune::Failure::crashed) {
        failures.push_back(c);
      }
    }
    if (costs.empty()) {
      fail(Errc::bad_input, "--warm-start {}: none of its rows is a configuration of this space that succeeded; give the folder or "
                            "--csv of an earlier run of the same parameters",
           file.string());
    }
    autotune::add_earlier_run(options, costs, failures);
    if (unknown) {
      setup.warnings.push_back(fmt::format("warm_start_rows_outside_space: {} rows of {} are no configuration of the space", unknown,
                                           file.string()));
    }
    setup.warm_start_files.push_back(file.string());
  }
  std::set<size_t> succeeded;
  for (const auto& [c, cost] : options.warm_start) succeeded.insert(c);
  setup.warm_start_configurations = succeeded.size();
  setup.warm_start_failed = options.warm_start_failures.size();
}

// The kernel the first --warm-start folder's run timed (its autotune.json's objective.kernel), if
// it says: at another size the same kernel is tuned, and this run's first seed, that run's best,
// is where a check's kernel is the likeliest to take as long.
std::optional<std::string> earlier_kernel(const AutotuneRequest& o) {
  std::error_code ec;
  if (o.warm_start_files.empty() || !fs::is_regular_file(o.warm_start_files.front() / "autotune.json", ec)) return std::nullopt;
  const auto doc = nlohmann::json::parse(read_file(o.warm_start_files.front() / "autotune.json"), nullptr, false);
  if (!doc.is_object() || !doc.contains("objective") || !doc["objective"].is_object()) return std::nullopt;
  const auto& kernel = doc["objective"].value("kernel", nlohmann::json());
  if (!kernel.is_string()) return std::nullopt;
  return kernel.get<std::string>();
}

// The GPU the workers run on, named by the driver (NVIDIA) or by --device-name.
std::string device_identity(const AutotuneRequest& o, std::vector<std::string>& warnings) {
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

autotune::TuneOptions tune_options(const AutotuneRequest& o) {
  autotune::TuneOptions options;
  options.seed = o.seed;
  options.seed_fraction = o.seed_fraction;
  options.prune_factor = o.prune_factor;
  options.min_r2 = o.min_r2;
  options.top_k = o.top_k;
  options.maximize = o.maximize;
  options.max_cv = o.stability.max_cv;
  options.workers = o.launch.slurm() ? o.launch.workers : o.devices.empty() ? 1 : static_cast<int>(o.devices.size());
  autotune::apply_budget(o.budget, options);
  const auto strategy = autotune::strategy_from_name(o.strategy);
  if (!strategy) fail(Errc::bad_input, "--strategy {}: give bayes, model or random", o.strategy);
  options.strategy = *strategy;
  options.batch = o.batch;  // 0: autotune::chosen_together's default
  return options;
}

// How each configuration is measured, and what autotune.json says of it.
autotune::ProcessEvaluatorOptions evaluator_options(const AutotuneRequest& o, const autotune::TuneOptions& options,
                                                    report::AutotuneSetup& setup) {
  autotune::ProcessEvaluatorOptions eval;
  eval.command = autotune::CommandTemplate(o.cmd_template, "--cmd-template");
  if (!o.build_template.empty()) eval.build = autotune::CommandTemplate(o.build_template, "--build-template");
  setup.space_file = o.space_file.string();
  setup.command_template = o.cmd_template;
  setup.build_template = o.build_template;
  setup.maximize = o.maximize;
  setup.budget_seconds = options.time_budget_seconds;
  if (!o.metric_regex.empty()) {
    eval.objective = autotune::Objective::printed_metric;
    eval.metric_regex = o.metric_regex;
    setup.objective = "printed_metric";
    setup.selector = o.metric_regex;
  } else if (o.no_rocprof) {
    eval.objective = autotune::Objective::process_time;
    setup.objective = "process_time";
    setup.unit = "ms";
  } else {
    eval.objective = autotune::Objective::kernel_time;
    setup.objective = "kernel_time";
    setup.unit = "ms";
    setup.selector = o.kernel;
    if (!o.kernel.empty()) eval.kernel_regex = o.kernel;
  }
  eval.stability = o.stability;
  if (o.timeout > 0) eval.timeout_seconds = o.timeout;
  eval.keep_runs = o.keep_runs;
  eval.worker_env.clear();  // it holds one worker's by default
  for (int w = 0; w < options.workers; ++w) {
    if (o.devices.empty()) {
      eval.worker_env.push_back({});
    } else {
      const std::string d = std::to_string(o.devices[static_cast<size_t>(w)]);
      eval.worker_env.push_back({{"CUDA_VISIBLE_DEVICES", d}, {"HIP_VISIBLE_DEVICES", d}});
    }
  }
  setup.devices = o.devices;
  return eval;
}

// Which kernel's times these are, and a warning where another kernel took more GPU time or where
// --kernel matched several.
void report_kernel(const autotune::KernelTally& t, const std::string& regex, report::AutotuneSetup& setup) {
  setup.kernel = t.kernel;
  if (t.several_matched) {
    setup.warnings.push_back(fmt::format("kernel_regex_matches_several: in {} of {} runs --kernel '{}' matched kernels of several "
                                         "functions ({} the first time); each run timed the largest, which may be another "
                                         "function's in another configuration: give a --kernel that matches one",
                                         t.several_matched, t.runs, regex, t.first_matched));
  }
  if (t.not_dominant == 0) return;
  setup.warnings.push_back(fmt::format("kernel_not_dominant: in {} of {} runs another kernel ({} the first time) took more GPU "
                                       "time than {}; the times are {}'s, the kernel measured first: to tune another, name it "
                                       "with --kernel",
                                       t.not_dominant, t.runs, t.first_dominant, t.kernel, t.kernel));
}

}  // namespace

AutotuneResult run_autotune(const AutotuneRequest& o, Control& control) {
  check_request(o);
  AutotuneResult out;
  out.space = autotune::load_search_space(o.space_file.string());
  const auto& space = out.space;
  auto& setup = out.setup;
  auto options = tune_options(o);
  if (!o.warm_start_files.empty()) read_warm_start(o, space, options, setup);
  auto eval = evaluator_options(o, options, setup);

  create_output_folder(o.out_dir);
  eval.work_dir = o.out_dir;
  const std::string shared_dir = o.launch.shared_dir.empty() ? o.out_dir.string() : o.launch.shared_dir;
  if (o.launch.slurm()) {
    create_output_folder(shared_dir);
    eval.work_dir = shared_dir;
    eval.slurm = prepare_slurm(o.launch);
    eval.build_local = o.launch.build_where == "local";
    eval.step_retries = o.launch.retries;
  }
  // Opened now: a CSV path that cannot be written fails before the first measurement.
  std::optional<OutputFile> csv;
  if (!o.csv_file.empty()) csv.emplace(o.csv_file);

  std::unique_ptr<autotune::Evaluator> evaluator;
  std::unique_ptr<autotune::MeasurementStore> store;
  std::unique_ptr<autotune::ResultCache> cache;
  const autotune::ProcessEvaluator* times_kernels = nullptr;  // kernel_time, not replayed
  autotune::CacheScope scope;
  std::string run_key;
  if (!o.replay_file.empty()) {
    autotune::check_placeholders(space, eval.command, eval.build);  // as the live run would
    const fs::path file = measurements_file(o.replay_file, "--replay", o);
    size_t unknown = 0;
    auto recorded = autotune::read_measurements_csv(file, space, unknown);
    if (unknown) {
      setup.warnings.push_back(fmt::format("replay_rows_outside_space: {} rows of {} are no configuration of the space", unknown,
                                           file.string()));
    }
    // A time budget spends each measurement's recorded seconds (Evaluator::replays_recorded_time).
    const bool timed = std::any_of(recorded.begin(), recorded.end(), [](const auto& r) { return r.second.seconds > 0; });
    if (options.time_budget_seconds && !timed) {
      fail(Errc::bad_input, "--budget {}: --replay {} records no time taken (its seconds are absent or 0), so a time budget cannot be "
                            "replayed from it; give a count or a percentage",
           o.budget, file.string());
    }
    evaluator = std::make_unique<autotune::RecordedEvaluator>(std::move(recorded));
    store = std::make_unique<autotune::NullStore>();
    setup.device = "replay of " + file.string();
  } else {
    if (eval.objective == autotune::Objective::kernel_time) {
      eval.backend = o.backend == "auto" ? backends::choose_trace_backend() : o.backend;
    }
    auto process = std::make_unique<autotune::ProcessEvaluator>(space, eval);
    if (eval.slurm) {
      control.stage_started("allocate");
      const auto gpu = start_slurm(*eval.slurm, shared_dir, control.cancel_token());
      control.stage_finished("allocate");
      setup.device = !o.device_name.empty() ? o.device_name : gpu.value_or("");
      if (setup.device.empty()) {
        setup.device = "unnamed device";
        setup.warnings.push_back("device_unnamed: the nodes' GPU has no name here; give --device-name so that the cache keeps "
                                 "devices apart");
      }
    } else {
      setup.device = device_identity(o, setup.warnings);
    }
    scope.device = setup.device;
    scope.program = process->program_digest();
    scope.templates = o.cmd_template + "\n" + o.build_template;
    scope.objective = setup.objective + ":" + setup.selector + (o.maximize ? ":max" : "");
    const fs::path cache_file = o.cache_file.empty() ? o.out_dir / "cache.db" : o.cache_file;
    cache = std::make_unique<autotune::ResultCache>(cache_file);
    setup.cache_file = cache_file.string();
    run_key = scope.templates + "\n" + scope.objective + "\n" + space.digest() +
              fmt::format("\n{} {} {} {} {} {} {} {}", o.seed, o.seed_fraction, o.prune_factor, o.min_r2, o.budget, options.top_k,
                          o.strategy, autotune::chosen_together(options));
    for (const auto& [c, cost] : options.warm_start) run_key += fmt::format("\nwarm start {} {}", c, cost);  // --resume needs the same
    for (size_t c : options.warm_start_failures) run_key += fmt::format("\nwarm start {} failed", c);
    const auto previous = cache->find_run(run_key);
    if (o.resume) {
      if (!previous) {
        fail(Errc::bad_input, "--resume: {} holds no run of this space, these templates and options to resume", cache_file.string());
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
    if (eval.objective == autotune::Objective::kernel_time && !eval.kernel_regex) {
      auto known = cache->kernel_function(scope);
      if (!known && (known = earlier_kernel(o))) cache->set_kernel_function(scope, *known);
      auto* kept = cache.get();
      process->remember_kernel(known, [kept, scope](const std::string& function) { kept->set_kernel_function(scope, function); });
    }
    if (eval.objective == autotune::Objective::kernel_time) times_kernels = process.get();
    store = std::make_unique<autotune::CachedMeasurements>(*cache, scope, space);
    evaluator = std::move(process);
  }

  control.stage_started("search");
  out.result = autotune::tune(space, *evaluator, *store, options, o.progress, control.cancel_token());
  control.stage_finished("search");
  if (eval.slurm) {
    eval.slurm->cancel();  // every step has ended; the allocation is not needed any more
    setup.slurm = slurm_setup(o.launch, *eval.slurm, shared_dir);
  }
  if (cache && !out.result.interrupted) cache->record_run(run_key, scope, "finished");
  if (times_kernels) report_kernel(times_kernels->kernel_tally(), o.kernel, setup);

  if (out.result.best) {
    out.best_command = eval.command.instantiate([&](const std::string& name) {
      return name == autotune::kBuildDirPlaceholder ? std::string("{BUILD_DIR}") : space.text(*out.result.best, name).value_or("");
    });
  }
  out.document = report::autotune_json(space, out.result, setup, out.best_command);
  out.document_file = o.out_dir / "autotune.json";
  write_output_file(out.document_file, report::dump(out.document));
  const std::string measurements = autotune::measurements_csv(space, out.result);
  write_output_file(o.out_dir / kMeasurementsFile, measurements);
  if (csv) {
    csv->stream() << measurements;
    csv->commit();
  }
  for (const auto& w : out.document["warnings"]) control.warning("autotune", w.get<std::string>());
  return out;
}

}  // namespace rpl::workflow
