#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rpl::backends {

/// How to run the program being profiled.
struct RunOptions {
  std::vector<std::string> command;     // argv of the program; never passed through a shell
  int runs = 3;
  std::optional<double> timeout_seconds;
  bool debug = false;                   // print commands, keep temporary folders and logs
  bool quiet_app = false;               // the program's output goes to its run log only
  bool app_stdout_to_stderr = false;    // our stdout is kept for a document (--json, --quiet)
  /// What a trace records (docs/dependencies.md): "kernels" (kernels and copies), "default" (and the
  /// calls that make dependency edges), "full" (and every host API call).
  std::string trace_level = "default";
  std::vector<std::pair<std::string, std::string>> extra_env;  // e.g. CUDA_VISIBLE_DEVICES of a tuner's worker
};

/// Error(bad_input) when the program cannot be found.
void check_program_exists(const RunOptions& options);

/// "rocm" when rocprofv3 is installed, else "cuda" when an NVIDIA GPU can be traced; otherwise
/// Error(missing_tool) saying why neither can.
std::string choose_trace_backend();

}  // namespace rpl::backends
