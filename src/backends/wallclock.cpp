#include <rpl/backends/wallclock.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

#include "traced_runs.hpp"

namespace rpl::backends {

std::vector<double> time_whole_process(const RunOptions& options, const std::filesystem::path& log_dir) {
  check_program_exists(options);
  detail::RunFolder folder(log_dir);
  std::vector<double> seconds;
  for (int run = 1; run <= options.runs; ++run) {
    ProcessOptions p;
    p.argv = options.command;
    p.extra_env = options.extra_env;
    if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
    detail::tee_program_output(p, options, folder.log_file(run));
    log::debug(fmt::format("run {} of {}: {}", run, options.runs, display_command(p.argv)));
    ProcessResult r = run_process(p);
    if (r.cancelled) folder.abandon_interrupted(run, options.runs);
    if (!r.ok()) {
      fail(Errc::run_failed, "run {} of {}: {} {} (its output: {})", run, options.runs, display_command(options.command),
           r.describe(options.timeout_seconds.value_or(0)), folder.log_file(run).string());
    }
    seconds.push_back(r.wall_seconds);
  }
  folder.commit();
  return seconds;
}

}  // namespace rpl::backends
