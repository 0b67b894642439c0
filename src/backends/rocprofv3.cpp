#include <rpl/backends/rocprofv3.hpp>

#include <algorithm>

#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

#include "run_failure.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;

std::optional<fs::path> find_rocprofv3() {
  if (auto p = find_executable("rocprofv3")) return p;
  return find_executable("/opt/rocm/bin/rocprofv3");
}

std::vector<std::string> rocprofv3_trace_argv(const fs::path& rocprofv3, const fs::path& output_dir,
                                              const std::vector<std::string>& command) {
  std::vector<std::string> argv = {rocprofv3.string(), "--kernel-trace", "--output-format", "rocpd",
                                   "-d", output_dir.string(), "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

namespace {

// rocprofv3 writes DIR/<hostname>/<pid>_results.db, one per process (reference/rocm.md §2.6).
std::vector<fs::path> find_result_databases(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 11 && name.compare(name.size() - 11, 11, "_results.db") == 0) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void move_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) {  // another filesystem: copy, then remove
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    fs::remove(from);
  }
}

// Swaps a freshly filled folder in for the old one, so an interrupted profile leaves the old traces.
void replace_folder(const fs::path& fresh, const fs::path& target) {
  const fs::path old = target.string() + ".old";
  std::error_code ec;
  fs::remove_all(old, ec);
  if (fs::exists(target)) fs::rename(target, old);
  fs::rename(fresh, target);
  fs::remove_all(old, ec);
}

}  // namespace

std::vector<fs::path> trace_with_rocprofv3(const RunOptions& options, const fs::path& trace_dir) {
  auto rocprofv3 = find_rocprofv3();
  if (!rocprofv3) {
    fail(Errc::missing_tool,
         "rocprofv3 not found in PATH or /opt/rocm/bin: install ROCm 7 (rocprofiler-sdk), or use --no-rocprof to time the "
         "whole program");
  }
  check_program_exists(options);
  const fs::path staging = trace_dir.string() + ".new";
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging);

  std::vector<std::string> names;
  for (int run = 1; run <= options.runs; ++run) {
    TempDir tmp("rocm-perf-run-");
    const fs::path out = tmp.path() / "rocprofv3";
    const fs::path log_file = tmp.path() / "rocprofv3.log";
    ProcessOptions p;
    p.argv = rocprofv3_trace_argv(*rocprofv3, out, options.command);
    p.output_file = log_file;
    if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
    log::debug(fmt::format("run {} of {}: {}", run, options.runs, display_command(p.argv)));
    if (options.debug) {
      tmp.keep();
      log::debug(fmt::format("run {} keeps its temporary folder {} (rocprofv3 log: {})", run, tmp.path().string(),
                             log_file.string()));
    }
    ProcessResult r = run_process(p);
    if (!r.ok()) {
      tmp.keep();  // the log is the user's only clue
      fs::remove_all(staging, ec);
      detail::fail_run(options, run, r, fmt::format(" (rocprofv3's log: {})", log_file.string()));
    }
    auto dbs = find_result_databases(out);
    if (dbs.empty()) {
      tmp.keep();
      fs::remove_all(staging, ec);
      fail(Errc::run_failed, "run {} of {}: rocprofv3 wrote no *_results.db under {} (its log: {})", run, options.runs,
           out.string(), log_file.string());
    }
    for (size_t i = 0; i < dbs.size(); ++i) {
      std::string name = fmt::format("run{}_{}", run, dbs[i].filename().string());
      move_file(dbs[i], staging / name);
      names.push_back(name);
    }
  }
  replace_folder(staging, trace_dir);
  std::vector<fs::path> kept;
  for (const auto& name : names) kept.push_back(trace_dir / name);
  return kept;
}

}  // namespace rpl::backends
