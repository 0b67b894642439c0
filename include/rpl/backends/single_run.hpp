#pragma once
// One run of a program for a measurement loop (the tuner): no run folder, no retries, and the
// outcome returned rather than thrown, so that the caller can say what kind of failure it was.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rpl/backends/run_options.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends {

struct SingleRun {
  ProcessResult process;
  std::vector<std::filesystem::path> databases;  // the tool's *_results.db files, under the run's folder
  std::optional<std::string> refusal;            // the tool refused to run (e.g. another CUPTI client)
  std::filesystem::path log_file;                // the program's stdout and stderr
};

/// A prepared tool: "rocm" (rocprofv3), "cuda" (the CUPTI tracer) or "wallclock" (the program
/// alone). Error(missing_tool) when the tool cannot be used here, Error(bad_input) when
/// options.command is given and its program does not exist.
class SingleRunner {
 public:
  SingleRunner(std::string backend, const RunOptions& options);
  ~SingleRunner();
  SingleRunner(SingleRunner&&) noexcept;
  /// Runs options.command (or `command` when given) once, with its output in dir/run.log and the
  /// tool's databases under dir. options.runs is ignored; timeout, env and quiet_app apply.
  /// `launcher` goes before the whole command line, the tool's included (a Slurm step's srun).
  SingleRun run(const std::filesystem::path& dir, const std::vector<std::string>& command,
                const std::vector<std::pair<std::string, std::string>>& extra_env,
                const std::atomic<bool>* cancel = nullptr, const std::vector<std::string>& launcher = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rpl::backends
