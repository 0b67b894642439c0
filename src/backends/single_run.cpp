#include <rpl/backends/single_run.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

#include "traced_runs.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;

struct SingleRunner::Impl {
  std::string backend;
  RunOptions options;
  std::optional<detail::TraceTool> tool;  // none for wallclock
};

SingleRunner::SingleRunner(std::string backend, const RunOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->backend = std::move(backend);
  impl_->options = options;
  if (impl_->backend == "cuda") impl_->tool = detail::cupti_tool(options);
  else if (impl_->backend == "rocm") impl_->tool = detail::rocprofv3_tool(options);
  else if (impl_->backend == "wallclock" && !options.command.empty()) check_program_exists(options);
  else if (impl_->backend != "wallclock") fail(Errc::internal, "unknown backend {}", impl_->backend);
}

SingleRunner::~SingleRunner() = default;
SingleRunner::SingleRunner(SingleRunner&&) noexcept = default;

SingleRun SingleRunner::run(const fs::path& dir, const std::vector<std::string>& command,
                            const std::vector<std::pair<std::string, std::string>>& extra_env,
                            const std::atomic<bool>* cancel, const std::vector<std::string>& launcher) const {
  RunOptions options = impl_->options;
  options.command = command;
  fs::create_directories(dir);
  SingleRun result;
  result.log_file = dir / "run.log";
  ProcessOptions p;
  std::optional<detail::TracedRun> plan;
  if (impl_->tool) {
    plan = impl_->tool->plan(dir, command);
    p.argv = plan->argv;
    p.extra_env = plan->env;
  } else {
    p.argv = command;
  }
  p.argv.insert(p.argv.begin(), launcher.begin(), launcher.end());
  p.extra_env.insert(p.extra_env.end(), options.extra_env.begin(), options.extra_env.end());
  p.extra_env.insert(p.extra_env.end(), extra_env.begin(), extra_env.end());
  detail::tee_program_output(p, options, result.log_file);
  if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
  p.cancel = cancel;
  log::debug(fmt::format("single run: {}", display_command(p.argv)));
  result.process = run_process(p);
  if (plan) {
    result.databases = detail::find_result_databases(plan->output_dir);
    if (impl_->tool->finish_databases) impl_->tool->finish_databases(result.databases);
    if (!result.process.ok() && !result.process.timed_out && result.process.exit_status == 3) {
      result.refusal = impl_->tool->refusal(*plan);
    }
  }
  return result;
}

}  // namespace rpl::backends
