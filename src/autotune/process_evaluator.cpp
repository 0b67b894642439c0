#include <rpl/autotune/process_evaluator.hpp>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include <rpl/backends/single_run.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/core/text.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "digest.hpp"
#include "kernel_choice.hpp"
#include "slurm_steps.hpp"

namespace rpl::autotune {
namespace fs = std::filesystem;
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += w + '\n';
  return out;
}

// The end of a program's log: its last line is the most useful clue to a failure.
std::string log_tail(const fs::path& log) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const auto size = static_cast<long long>(in.tellg());
  const long long from = std::max(0LL, size - 4096);
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  return tail;
}

std::string with_clue(std::string what, const fs::path& log) {
  const std::string clue = last_line(log_tail(log));
  return clue.empty() ? what : what + ": " + clue;
}

// The digest of the literal files a template names: its program and any argument that is a file.
std::string files_digest(const CommandTemplate& t, bool program_literal) {
  std::string acc;
  const auto words = t.literal_words();
  for (size_t i = 0; i < words.size(); ++i) {
    std::optional<fs::path> file;
    if (i == 0 && program_literal) file = find_executable(words[0]);
    std::error_code ec;
    if (!file && !words[i].empty() && fs::is_regular_file(words[i], ec)) file = words[i];
    if (file) acc += words[i] + '=' + sha256_file(*file) + '\n';
  }
  return sha256_hex(acc);
}

bool first_word_literal(const CommandTemplate& t) {
  const auto words = t.literal_words();
  const auto argv = t.instantiate([](const std::string&) { return std::string("\x01"); });
  return !words.empty() && !argv.empty() && argv[0].find('\x01') == std::string::npos;
}

}  // namespace

struct ProcessEvaluator::Impl {
  const SearchSpace& space;
  ProcessEvaluatorOptions options;
  std::optional<std::regex> metric;
  std::unique_ptr<backends::SingleRunner> runner;
  std::string program_digest;
  std::string build_inputs_digest;
  std::mutex builds_mutex;
  std::map<std::string, std::unique_ptr<std::mutex>> build_locks;
  KernelChoice kernels;

  Impl(const SearchSpace& s, ProcessEvaluatorOptions o) : space(s), options(std::move(o)), kernels(options.kernel_regex) {}

  std::string lookup(size_t c, const std::string& name, const std::string& build_dir) const {
    if (name == kBuildDirPlaceholder) return build_dir;
    return space.text(c, name).value_or("");
  }

  // A step kills its own program past --timeout; srun gets longer, for the step to start and end.
  std::optional<double> local_timeout() const {
    constexpr double kStepGraceSeconds = 300;
    if (!options.timeout_seconds || !options.slurm) return options.timeout_seconds;
    return *options.timeout_seconds + kStepGraceSeconds;
  }

  SlurmStep step_at(const fs::path& dir, const fs::path& log, bool with_gpus) const {
    return {dir / "step.json", log, options.timeout_seconds, with_gpus, options.step_retries};
  }

  std::mutex& build_lock(const std::string& key) {
    std::lock_guard<std::mutex> guard(builds_mutex);
    auto& m = build_locks[key];
    if (!m) m = std::make_unique<std::mutex>();
    return *m;
  }

  // Builds configuration c (once per distinct build command and inputs); its folder, or a failure.
  std::optional<fs::path> build(size_t c, Measurement& m, const std::atomic<bool>* cancel) {
    const auto keyed = options.build.instantiate([&](const std::string& n) { return lookup(c, n, "{BUILD_DIR}"); });
    const std::string key = sha256_hex(join(keyed) + build_inputs_digest).substr(0, 24);
    const fs::path dir = fs::absolute(options.work_dir / "builds" / key);
    std::lock_guard<std::mutex> guard(build_lock(key));
    if (fs::exists(dir / ".built")) return dir;
    if (fs::exists(dir / ".failed")) {
      m.failure = Failure::build_failed;
      m.detail = read_file(dir / ".failed");
      return std::nullopt;
    }
    fs::create_directories(dir);
    ProcessOptions p;
    p.argv = options.build.instantiate([&](const std::string& n) { return lookup(c, n, dir.string()); });
    p.output_file = dir / "build.log";
    p.cancel = cancel;
    if (auto t = local_timeout()) p.timeout = std::chrono::duration<double>(*t);
    ProcessResult r;
    try {
      if (options.slurm && !options.build_local) {
        const auto build_argv = p.argv;
        auto step = run_as_step(*options.slurm, step_at(dir, dir / "build.log", false), [&](const std::vector<std::string>& srun) {
          p.argv = srun;
          p.argv.insert(p.argv.end(), build_argv.begin(), build_argv.end());
          return run_process(p);
        }, m);
        if (!step) return std::nullopt;  // interrupted or node_failed: nothing known of the build itself
        r = *step;
      } else {
        r = run_process(p);
      }
    } catch (const Error& e) {
      if (e.code() == Errc::run_failed) throw;  // the allocation ended
      m.failure = Failure::build_failed;
      m.detail = e.what();
      write_output_file(dir / ".failed", m.detail);
      return std::nullopt;
    }
    if (r.cancelled) {
      m.interrupted = true;
      return std::nullopt;
    }
    if (!r.ok()) {
      m.failure = Failure::build_failed;
      m.detail = with_clue("the build " + r.describe(options.timeout_seconds.value_or(0)), dir / "build.log");
      write_output_file(dir / ".failed", m.detail);
      return std::nullopt;
    }
    write_output_file(dir / ".built", "");
    return dir;
  }

  // One run's samples into `samples`, or a failure into m.
  void run_once(const std::vector<std::string>& argv, int worker, const std::atomic<bool>* cancel,
                std::vector<double>& samples, Measurement& m) {
    const fs::path dir = options.work_dir / "runs" / fmt::format("worker{}", worker);
    std::error_code ec;
    fs::remove_all(dir, ec);
    backends::SingleRun r;
    const auto& env = options.worker_env.at(static_cast<size_t>(worker));
    try {
      if (options.slurm) {
        auto step = run_as_step(*options.slurm, step_at(dir, dir / "run.log", true), [&](const std::vector<std::string>& srun) {
          r = runner->run(dir, argv, env, cancel, srun);
          return r.process;
        }, m);
        if (!step) return;  // interrupted or node_failed
        r.process = *step;
      } else {
        r = runner->run(dir, argv, env, cancel);
      }
    } catch (const Error& e) {
      if (e.code() != Errc::missing_tool) throw;
      m.failure = Failure::launch_failed;  // a templated program that does not exist
      m.detail = e.what();
      return;
    }
    ++m.runs;
    if (r.refusal) fail(Errc::missing_tool, "{}", *r.refusal);
    const auto& p = r.process;
    if (p.cancelled) {
      m.interrupted = true;
      return;
    }
    if (p.timed_out) {
      m.failure = Failure::timed_out;
      m.detail = p.describe(options.timeout_seconds.value_or(0));
      return;
    }
    if (p.term_signal != 0) {
      m.failure = Failure::crashed;
      m.detail = with_clue(p.describe(), r.log_file);
      return;
    }
    if (p.exit_status != 0) {
      m.failure = Failure::launch_failed;
      m.detail = with_clue(p.describe(), r.log_file);
      return;
    }
    switch (options.objective) {
      case Objective::process_time: samples.push_back(p.wall_seconds * 1e3); break;
      case Objective::printed_metric: metric_samples(r.log_file, samples, m); break;
      case Objective::kernel_time: kernel_samples(r.databases, samples, m); break;
    }
  }

  // Line by line, and only lines of at most kMaxMetricLine bytes: std::regex recurses per matched
  // character, and a greedy pattern over a long line of output would overflow the stack.
  void metric_samples(const fs::path& log, std::vector<double>& samples, Measurement& m) {
    constexpr size_t kMaxMetricLine = 16 * 1024;
    std::istringstream lines(read_file(log));
    size_t found = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.size() > kMaxMetricLine) continue;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), *metric); it != std::sregex_iterator(); ++it) {
        const auto& match = *it;
        const std::string text = match.size() > 1 ? match[1].str() : match[0].str();
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || !std::isfinite(v) || v <= 0) continue;
        samples.push_back(v);
        ++found;
      }
    }
    if (found == 0) {
      m.failure = Failure::no_metric;
      m.detail = fmt::format("no positive number matched --metric-regex '{}' in its output", options.metric_regex);
    }
  }

  void kernel_samples(const std::vector<fs::path>& dbs, std::vector<double>& samples, Measurement& m) {
    if (dbs.empty()) {
      m.failure = Failure::no_kernel;
      m.detail = "the tracer recorded no kernel";
      return;
    }
    try {
      const auto trace = trace::read_rocpd(dbs);
      for (int32_t d : kernels.choose(trace)) samples.push_back(static_cast<double>(trace.dispatches[d].duration_ns()) / 1e6);
    } catch (const KernelAmbiguous&) {
      throw;  // no configuration's failure: the run needs --kernel
    } catch (const Error& e) {
      m.failure = Failure::no_kernel;
      m.detail = e.what();
    }
  }
};

void check_placeholders(const SearchSpace& space, const CommandTemplate& command, const CommandTemplate& build) {
  auto known = space.names();
  if (!build.empty()) known.push_back(kBuildDirPlaceholder);
  std::vector<std::string> used;
  for (const auto* t : {&command, &build}) {
    const std::string option = t == &command ? "--cmd-template" : "--build-template";
    for (const auto& name : t->placeholders()) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        if (name == kBuildDirPlaceholder) fail(Errc::bad_input, "{}: {{BUILD_DIR}} needs a --build-template", option);
        fail(Errc::bad_input, "{}: {{{}}} is no parameter of the search space (it has: {})", option, name,
             fmt::join(space.names(), ", "));
      }
      used.push_back(name);
    }
  }
  for (const auto& p : space.parameters) {
    if (std::find(used.begin(), used.end(), p.name) == used.end()) {
      fail(Errc::bad_input, "parameter {} is used by neither --cmd-template nor --build-template: every value would run the "
                            "same command",
           p.name);
    }
  }
}

ProcessEvaluator::ProcessEvaluator(const SearchSpace& space, ProcessEvaluatorOptions options)
    : impl_(std::make_unique<Impl>(space, std::move(options))) {
  auto& o = impl_->options;
  if (o.command.empty()) fail(Errc::bad_input, "--cmd-template is empty: give the command to run");
  check_placeholders(space, o.command, o.build);
  if (o.objective == Objective::printed_metric) {
    try {
      impl_->metric.emplace(o.metric_regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      fail(Errc::bad_input, "--metric-regex '{}' is not a regular expression: {}", o.metric_regex, e.what());
    }
  }
  if (!o.build.empty() && !first_word_literal(o.build)) {
    fail(Errc::bad_input, "--build-template: its program must not be a placeholder");
  }
  // The program must exist when it is named literally; a built one appears later.
  backends::RunOptions run;
  run.quiet_app = true;
  run.timeout_seconds = impl_->local_timeout();
  run.trace_level = "kernels";  // a kernel's time needs no dependency edges, and the least overhead distorts it least
  const bool command_literal = first_word_literal(o.command);
  if (command_literal) run.command = {o.command.literal_words().front()};
  if (!o.build.empty()) {
    backends::RunOptions build_check;
    build_check.command = {o.build.literal_words().front()};
    backends::check_program_exists(build_check);
    impl_->build_inputs_digest = files_digest(o.build, true);
  }
  const std::string backend = o.objective == Objective::kernel_time ? o.backend : "wallclock";
  impl_->runner = std::make_unique<backends::SingleRunner>(backend, run);
  impl_->program_digest = sha256_hex(files_digest(o.command, command_literal) + impl_->build_inputs_digest);
}

ProcessEvaluator::~ProcessEvaluator() = default;

const std::string& ProcessEvaluator::program_digest() const { return impl_->program_digest; }

void ProcessEvaluator::remember_kernel(std::optional<std::string> function, std::function<void(const std::string&)> fixed) {
  impl_->kernels.remember(std::move(function), std::move(fixed));
}

KernelTally ProcessEvaluator::kernel_tally() const { return impl_->kernels.tally(); }

bool ProcessEvaluator::next_measurement_fixes_the_objective() const {
  return impl_->options.objective == Objective::kernel_time && !impl_->kernels.fixed();
}

Measurement ProcessEvaluator::measure(size_t c, int worker, const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  const auto& o = impl_->options;
  Measurement m;
  auto finish = [&] {
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!o.keep_runs) {
      std::error_code ec;
      fs::remove_all(o.work_dir / "runs" / fmt::format("worker{}", worker), ec);
    }
    return m;
  };
  std::string build_dir;
  if (!o.build.empty()) {
    auto dir = impl_->build(c, m, cancel);
    m.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!dir) return finish();
    build_dir = dir->string();
  }
  const auto argv = o.command.instantiate([&](const std::string& n) { return impl_->lookup(c, n, build_dir); });
  std::vector<double> samples;
  for (;;) {
    impl_->run_once(argv, worker, cancel, samples, m);
    if (m.interrupted || !m.ok()) return finish();
    summarize_samples(samples, o.stability.max_cv, m);
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (m.samples >= o.stability.min_samples && (m.stable || median_settled(m, o.stability.max_cv))) break;
    if (m.runs >= o.stability.max_runs || spent >= o.stability.max_seconds) break;
  }
  return finish();
}

}  // namespace rpl::autotune
