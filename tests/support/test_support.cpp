#include "test_support.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>

#include "trace_scenarios.hpp"

namespace rpl::test {

std::optional<Errc> error_code_of(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return std::nullopt;
}
namespace fs = std::filesystem;

namespace {

// One scratch folder per test binary, removed at exit unless RPL_KEEP_TEST_FILES is set. Others may
// pass through it (not list it): the tests that run rocm-perf as an unprivileged user open folders
// in it to that user.
const fs::path& scratch_root() {
  static TempDir dir("rpl-test-");
  static bool ready = [] {
    if (std::getenv("RPL_KEEP_TEST_FILES")) dir.keep();
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    return true;
  }();
  (void)ready;
  return dir.path();
}

// What a test starts (rocm-perf, compilers) makes its temporary files in that scratch folder too, so
// that a folder kept on purpose after a failure, or one a compiler leaves, goes with it instead of
// piling up in /tmp.
[[maybe_unused]] const bool kTmpdirIsScratch = [] { return ::setenv("TMPDIR", scratch_root().c_str(), 1) == 0; }();

}  // namespace

namespace {

// A build may run elsewhere than it was made (the GPU machine gets a copy): the variables
// RPL_SOURCE_DIR and RPL_BUILD_DIR override the paths compiled in.
fs::path from_env_or(const char* variable, const fs::path& fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? fs::path(value) : fallback;
}

}  // namespace

fs::path source_dir() { return from_env_or("RPL_SOURCE_DIR", RPL_SOURCE_DIR); }
fs::path build_dir() { return from_env_or("RPL_BUILD_DIR", RPL_BUILD_DIR); }
fs::path bin_dir() { return build_dir() / "bin"; }
fs::path fake_rocprof_dir() { return build_dir() / "fake-rocprof/bin"; }
fs::path examples_dir() { return build_dir() / "examples"; }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::map<std::string, int> runs_per_configuration(const std::filesystem::path& log) {
  std::map<std::string, int> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) ++out[line.substr(0, line.find(" device="))];
  return out;
}
int repeated_runs(const std::map<std::string, int>& runs) {
  int extra = 0;
  for (const auto& [args, n] : runs) extra += n - 1;
  return extra;
}

int count_lines(const std::string& text) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) ++n;
  }
  return n;
}

bool process_gone(int pid) {
  for (int i = 0; i < 100; ++i) {
    if (::kill(pid, 0) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

fs::path fresh_dir(const std::string& name) {
  static int counter = 0;
  fs::path dir = scratch_root() / (name + "-" + std::to_string(++counter));
  fs::create_directories(dir);
  return dir;
}

namespace {

CliResult run_argv(std::vector<std::string> argv, const std::vector<std::string>& args,
                   const std::vector<std::pair<std::string, std::string>>& env, double timeout_seconds) {
  const fs::path dir = fresh_dir("cli");
  ProcessOptions p;
  p.argv = std::move(argv);
  p.argv.push_back((bin_dir() / "rocm-perf").string());
  p.argv.insert(p.argv.end(), args.begin(), args.end());
  p.extra_env = env;
  p.extra_env.emplace_back("NO_COLOR", "1");
  p.output_file = dir / "stdout";
  p.error_file = dir / "stderr";
  p.timeout = std::chrono::duration<double>(timeout_seconds);
  ProcessResult r = run_process(p);
  CliResult out;
  out.exit_code = r.timed_out ? -2 : r.term_signal ? 128 + r.term_signal : r.exit_status;
  out.out = read_text(dir / "stdout");
  out.err = read_text(dir / "stderr");
  out.seconds = r.wall_seconds;
  return out;
}

}  // namespace

CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env,
                  double timeout_seconds) {
  return run_argv({}, args, env, timeout_seconds);
}

CliResult run_cli_unprivileged(const std::vector<std::string>& args) {
  if (::geteuid() != 0) return run_cli(args);
  return run_argv({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, args, {}, 120);
}

int start_cli(const std::vector<std::string>& args, const fs::path& err_file,
              const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> argv{(bin_dir() / "rocm-perf").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
  ::setenv("NO_COLOR", "1", 1);
  if (!std::freopen("/dev/null", "w", stdout) || !std::freopen(err_file.c_str(), "w", stderr)) ::_exit(127);
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  ::execv(cargv[0], cargv.data());
  ::_exit(127);
}

int wait_cli(int pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

fs::path scenario(const std::string& name, int run, const fs::path& dir) {
  fs::path path = dir / (name + "_run" + std::to_string(run) + ".db");
  tools::write_scenario(name, run, path);
  return path;
}

PathPrepended::PathPrepended(const fs::path& dir) : saved_(std::getenv("PATH") ? std::getenv("PATH") : "") {
  setenv("PATH", (dir.string() + ":" + saved_).c_str(), 1);
}

PathPrepended::~PathPrepended() { setenv("PATH", saved_.c_str(), 1); }

fs::path database_from_sql(const std::string& sql_fixture, const fs::path& dir, const std::string& extra_sql) {
  const auto path = dir / (fs::path(sql_fixture).stem().string() + "_results.db");
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(read_text(source_dir() / "tests/fixtures" / sql_fixture));
  if (!extra_sql.empty()) db.exec(extra_sql);
  return path;
}

std::string schema_errors(const std::string& json_text, const std::string& schema) {
  const fs::path doc = fresh_dir("json") / "document.json";
  std::ofstream(doc) << json_text;
  ProcessOptions p;
  p.argv = {from_env_or("RPL_TEST_PYTHON", RPL_TEST_PYTHON).string(), (source_dir() / "tests/support/validate_json.py").string(), (source_dir() / "schemas").string(),
            schema, doc.string()};
  p.capture_output = true;
  ProcessResult r = run_process(p);
  return r.ok() ? std::string() : (r.output.empty() ? r.describe() : r.output);
}

std::string golden_difference(const std::string& text, const std::string& name) {
  const fs::path golden = source_dir() / "tests/golden" / name;
  if (std::getenv("RPL_UPDATE_GOLDEN")) {
    write_output_file(golden, text);
    return "";
  }
  if (!fs::exists(golden)) return "missing golden file " + golden.string() + " (run with RPL_UPDATE_GOLDEN=1)";
  const std::string expected = read_text(golden);
  if (expected == text) return "";
  return "output differs from " + golden.string() + ":\n--- expected\n" + expected + "\n--- actual\n" + text;
}

}  // namespace rpl::test
