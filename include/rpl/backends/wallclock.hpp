#pragma once
// --no-rocprof: whole-process wall time, no GPU tooling needed.
#include <filesystem>
#include <vector>

#include <rpl/backends/run_options.hpp>

namespace rpl::backends {

/// Seconds per run, each run's output kept in log_dir/run<N>.log (log_dir replaced when all ran).
/// Error(run_failed) naming the run when one fails or times out.
std::vector<double> time_whole_process(const RunOptions& options, const std::filesystem::path& log_dir);

}  // namespace rpl::backends
