#pragma once
// Helpers shared by the tests: where things are, running the real rocm-perf binary, building
// scenario traces, and validating JSON against schemas/.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rpl/core/error.hpp>

namespace rpl::test {

/// The code of the rpl::Error that f throws (its message into *message), or none when it throws none.
std::optional<Errc> error_code_of(const std::function<void()>& f, std::string* message = nullptr);

std::filesystem::path source_dir();
std::filesystem::path build_dir();
std::filesystem::path bin_dir();           // rocm-perf, rocm-perf-lab, rpl-make-trace
std::filesystem::path fake_rocprof_dir();  // holds the stand-in "rocprofv3"
std::filesystem::path examples_dir();      // the GPU testbeds, where a CUDA compiler built them

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  double seconds = 0;
};

/// Runs build/bin/rocm-perf with args (PATH and other variables from env added).
CliResult run_cli(const std::vector<std::string>& args,
                  const std::vector<std::pair<std::string, std::string>>& env = {}, double timeout_seconds = 120);

/// run_cli as an unprivileged user (nobody, through setpriv) when the tests run as root, who may
/// write anywhere: for tests of permissions. As run_cli when they do not run as root.
CliResult run_cli_unprivileged(const std::vector<std::string>& args);

/// Starts build/bin/rocm-perf with args in the background (stdout to /dev/null, stderr to
/// err_file, env added); returns its pid, for tests that signal it.
int start_cli(const std::vector<std::string>& args, const std::filesystem::path& err_file,
              const std::vector<std::pair<std::string, std::string>>& env = {});

/// Waits for a process start_cli started; its exit code, or 128 + the signal that killed it.
int wait_cli(int pid);

/// Puts dir first in this process's PATH while it lives (stand-in tools found by PATH).
class PathPrepended {
 public:
  explicit PathPrepended(const std::filesystem::path& dir);
  ~PathPrepended();
  PathPrepended(const PathPrepended&) = delete;
  PathPrepended& operator=(const PathPrepended&) = delete;

 private:
  std::string saved_;
};

/// A fresh folder for one test, removed when the test binary exits.
std::filesystem::path fresh_dir(const std::string& name);

/// Writes a scenario trace (tools/trace_scenarios.hpp) and returns its path.
std::filesystem::path scenario(const std::string& name, int run, const std::filesystem::path& dir);

/// Runs tests/fixtures/<sql_fixture>, then extra_sql, through SQLite into a database in dir and
/// returns its path.
std::filesystem::path database_from_sql(const std::string& sql_fixture, const std::filesystem::path& dir,
                                        const std::string& extra_sql = "");

/// Empty when the document is valid against schemas/<schema>.schema.json, else the validator's errors.
std::string schema_errors(const std::string& json_text, const std::string& schema);

/// Compares text with tests/golden/<name>; RPL_UPDATE_GOLDEN=1 rewrites the golden file instead.
std::string golden_difference(const std::string& text, const std::string& name);

std::string read_text(const std::filesystem::path& path);

/// Writes text to path, byte for byte, making its folder.
void write_text(const std::filesystem::path& path, const std::string& text);

/// Number of non-empty lines.
int count_lines(const std::string& text);

/// How often each configuration ran, from the log the stand-in tunable program appends a line to
/// per run (tests/fixtures/synthetic_tunable.cpp, SYNTH_LOG): its arguments, without the device.
std::map<std::string, int> runs_per_configuration(const std::filesystem::path& log);
/// The runs beyond each configuration's first, in such a count.
int repeated_runs(const std::map<std::string, int>& runs);

/// Waits up to two seconds for process pid to be gone; true when it is.
bool process_gone(int pid);

}  // namespace rpl::test
