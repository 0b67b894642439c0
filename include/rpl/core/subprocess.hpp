#pragma once
// Runs programs from an argv vector, never through a shell. Each child leads its own process group
// so that a timeout kills everything it started.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rpl {

struct ProcessOptions {
  std::vector<std::string> argv;                                  // argv[0] is looked up in PATH
  std::vector<std::pair<std::string, std::string>> extra_env;     // added to (or replacing in) ours
  std::optional<std::chrono::duration<double>> timeout;           // whole process group killed past it
  std::optional<std::filesystem::path> output_file;               // stdout and stderr go here ...
  bool capture_output = false;                                    // ... or into ProcessResult::output
  std::optional<std::filesystem::path> error_file;                // stderr apart, when set
  /// Tee (instead of the above): stdout and stderr both go to tee_file as they come, and each is
  /// also copied as it comes to its descriptor here (-1: not copied), e.g. our own stderr.
  std::optional<std::filesystem::path> tee_file;
  int tee_stdout_to = -1;
  int tee_stderr_to = -1;
  std::optional<std::filesystem::path> working_directory;
  /// When set and it becomes true, the process group is killed and the result says cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct ProcessResult {
  int exit_status = -1;      // valid when the child exited normally
  int term_signal = 0;       // non-zero when the child was killed by a signal
  bool timed_out = false;
  bool cancelled = false;    // killed because ProcessOptions::cancel became true
  double wall_seconds = 0;   // from spawn to exit
  std::string output;        // with capture_output
  bool ok() const { return !timed_out && !cancelled && term_signal == 0 && exit_status == 0; }
  /// "exited with status 3", "was killed by signal 9 (Killed)", "timed out after 5 s"
  std::string describe(double timeout_seconds = 0) const;
};

/// Spawns and waits. Throws Error(missing_tool) when argv[0] cannot be executed.
ProcessResult run_process(const ProcessOptions& options);

/// Starts argv in a session of its own, with stdin, stdout and stderr on /dev/null, and returns at
/// once with its pid: for a helper that must outlive this process, so it is never waited for nor
/// killed here. Throws Error(missing_tool) when argv[0] cannot be executed.
int spawn_detached(const std::vector<std::string>& argv);

/// The full path of an executable found in PATH (or the name itself if it contains a '/'), else in
/// one of fallback_dirs (where toolkits install: /opt/rocm/bin, /usr/local/cuda/bin).
std::optional<std::filesystem::path> find_executable(const std::string& name,
                                                     const std::vector<std::filesystem::path>& fallback_dirs = {});

/// argv joined for display only, each word quoted when it needs it. Never executed.
std::string display_command(const std::vector<std::string>& argv);

}  // namespace rpl
