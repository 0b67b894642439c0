#pragma once
// The run loop both tracing backends share: one temporary folder per run, the program run with
// the tool's argv and environment, every *_results.db it wrote moved into the trace folder.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rpl/backends/run_options.hpp>

namespace rpl::backends::detail {

struct TracedRun {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path output_dir;  // where the tool writes its databases
};

struct TraceTool {
  std::string name;  // "rocprofv3", "the CUPTI tracer"
  std::function<TracedRun(const std::filesystem::path& run_dir)> plan;
  /// After a failed run: an error message when the tool refused to run (exit code 3), else none.
  std::function<std::optional<std::string>(const TracedRun&)> refusal;
};

/// Runs the program options.runs times; returns the kept databases (trace_dir/run<N>_*.db). A run
/// that fails keeps, in trace_dir, the databases of the runs before it and what it wrote itself.
std::vector<std::filesystem::path> collect_traces(const RunOptions& options, const std::filesystem::path& trace_dir,
                                                  const TraceTool& tool);

}  // namespace rpl::backends::detail
