#include <rpl/backends/wallclock.hpp>

#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

#include <rpl/core/error.hpp>

namespace rpl::backends {

std::vector<double> time_whole_process(const RunOptions& options) {
  check_program_exists(options);
  std::vector<double> seconds;
  for (int run = 1; run <= options.runs; ++run) {
    ProcessOptions p;
    p.argv = options.command;
    if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
    p.capture_output = true;  // keeps stdout free for --json
    log::debug(fmt::format("run {} of {}: {}", run, options.runs, display_command(p.argv)));
    ProcessResult r = run_process(p);
    if (!r.ok()) {
      fail(Errc::run_failed, "run {} of {}: {} {}", run, options.runs, display_command(options.command),
           r.describe(options.timeout_seconds.value_or(0)));
    }
    seconds.push_back(r.wall_seconds);
  }
  return seconds;
}

}  // namespace rpl::backends
