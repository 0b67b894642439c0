#include "traced_runs.hpp"

#include <algorithm>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends::detail {
namespace fs = std::filesystem;

namespace {

// Tools write DIR/<hostname>/<pid>_results.db, one per process (reference/rocm.md §2.6).
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

std::vector<fs::path> collect_traces(const RunOptions& options, const fs::path& trace_dir, const TraceTool& tool) {
  const fs::path staging = trace_dir.string() + ".new";
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging);

  std::vector<fs::path> kept;
  auto keep = [&](const std::vector<fs::path>& dbs, int run) {
    for (const auto& db : dbs) {
      const std::string name = "run" + std::to_string(run) + "_" + db.filename().string();
      move_file(db, staging / name);
      kept.push_back(trace_dir / name);
    }
  };
  for (int run = 1; run <= options.runs; ++run) {
    TempDir tmp("rocm-perf-run-");
    const TracedRun plan = tool.plan(tmp.path());
    const fs::path log_file = tmp.path() / "run.log";
    ProcessOptions p;
    p.argv = plan.argv;
    p.extra_env = plan.env;
    p.output_file = log_file;
    if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
    for (const auto& [key, value] : plan.env) log::debug(fmt::format("run {} environment: {}={}", run, key, value));
    log::debug(fmt::format("run {} of {}: {}", run, options.runs, display_command(p.argv)));
    if (options.debug) {
      tmp.keep();
      log::debug(fmt::format("run {} keeps its temporary folder {} (output: {})", run, tmp.path().string(), log_file.string()));
    }
    ProcessResult r = run_process(p);
    auto dbs = find_result_databases(plan.output_dir);
    if (!r.ok()) {
      tmp.keep();  // its output is the user's only clue
      if (auto refused = tool.refusal(plan); refused && !r.timed_out && r.exit_status == 3) {
        fs::remove_all(staging, ec);
        fail(Errc::missing_tool, "run {} of {}: {}", run, options.runs, *refused);
      }
      std::string kept_note;
      keep(dbs, run);
      if (!kept.empty()) {
        replace_folder(staging, trace_dir);
        kept_note = fmt::format("; the trace recorded so far is kept in {}", trace_dir.string());
      } else {
        fs::remove_all(staging, ec);
      }
      fail(Errc::run_failed, "run {} of {}: {} {} (its output: {}){}", run, options.runs, display_command(options.command),
           r.describe(options.timeout_seconds.value_or(0)), log_file.string(), kept_note);
    }
    if (dbs.empty()) {
      tmp.keep();
      fs::remove_all(staging, ec);
      fail(Errc::run_failed, "run {} of {}: {} wrote no *_results.db under {}: no kernels were recorded (output: {})", run,
           options.runs, tool.name, plan.output_dir.string(), log_file.string());
    }
    keep(dbs, run);
  }
  replace_folder(staging, trace_dir);
  return kept;
}

}  // namespace rpl::backends::detail
