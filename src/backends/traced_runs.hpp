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
#include <rpl/core/subprocess.hpp>

namespace rpl::backends::detail {

/// The folder of a profile's runs (OUT/.rocpd_profile: runN.log, runN_*.db), filled in a staging
/// folder beside it and swapped in whole at the end, so that an interrupted profile leaves the
/// previous one intact.
class RunFolder {
 public:
  explicit RunFolder(std::filesystem::path target);
  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& staging() const { return staging_; }
  std::filesystem::path log_file(int run) const { return staging_ / ("run" + std::to_string(run) + ".log"); }
  /// Moves the staging folder into place, replacing what was there.
  void commit();
  /// After a run stopped by Ctrl-C or SIGTERM: removes the staging folder and throws
  /// Error(run_failed) saying that the folder from before is as it was.
  [[noreturn]] void abandon_interrupted(int run, int runs);

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
};

/// The program's stdout and stderr go to log_file, and to our stderr and stdout (or stderr alone,
/// when stdout is kept for a document) unless quiet_app.
void tee_program_output(ProcessOptions& process, const RunOptions& options, const std::filesystem::path& log_file);

struct TracedRun {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path output_dir;  // where the tool writes its databases
};

struct TraceTool {
  std::string name;  // "rocprofv3", "the CUPTI tracer"
  std::function<TracedRun(const std::filesystem::path& run_dir, const std::vector<std::string>& command)> plan;
  /// After a failed run: an error message when the tool refused to run (exit code 3), else none.
  std::function<std::optional<std::string>(const TracedRun&)> refusal;
  /// After each run, on the databases it wrote (where they are), when the tool has more to say.
  std::function<void(const std::vector<std::filesystem::path>&)> finish_databases;
};

/// Runs the program options.runs times; returns the kept databases (trace_dir/run<N>_*.db), with
/// each run's output in trace_dir/run<N>.log. A run that fails keeps, in trace_dir, the databases
/// of the runs before it and what it wrote itself; when none was written, the previous trace_dir is
/// left as it was and the logs stay in trace_dir.new.
std::vector<std::filesystem::path> collect_traces(const RunOptions& options, const std::filesystem::path& trace_dir,
                                                  const TraceTool& tool);

/// Every *_results.db under dir, sorted.
std::vector<std::filesystem::path> find_result_databases(const std::filesystem::path& dir);

/// The tools, each checked to be usable (Error(missing_tool) otherwise).
TraceTool cupti_tool(const RunOptions& options);
TraceTool rocprofv3_tool(const RunOptions& options);

}  // namespace rpl::backends::detail
