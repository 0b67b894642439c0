#pragma once
#include <string>

#include <rpl/backends/run_options.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends::detail {

/// Error(run_failed) for run `index` (1-based), naming the program and what happened to it.
[[noreturn]] inline void fail_run(const RunOptions& options, int index, const ProcessResult& result,
                                  const std::string& log_hint) {
  fail(Errc::run_failed, "run {} of {}: {} {}{}", index, options.runs, display_command(options.command),
       result.describe(options.timeout_seconds.value_or(0)), log_hint);
}

}  // namespace rpl::backends::detail
