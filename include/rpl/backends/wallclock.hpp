#pragma once
// --no-rocprof: whole-process wall time, no GPU tooling needed.
#include <vector>

#include <rpl/backends/run_options.hpp>

namespace rpl::backends {

/// Seconds per run. Error(run_failed) naming the run when one fails or times out.
std::vector<double> time_whole_process(const RunOptions& options);

}  // namespace rpl::backends
