#include "traced_runs.hpp"

#include <unistd.h>

#include <algorithm>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends::detail {
namespace fs = std::filesystem;

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

namespace {

void move_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) {  // another filesystem: copy, then remove
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    fs::remove(from);
  }
}

}  // namespace

RunFolder::RunFolder(fs::path target) : target_(std::move(target)), staging_(target_.string() + ".new") {
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  if (ec) fail(Errc::bad_input, "{}: cannot create the folder: {}", staging_.string(), ec.message());
}

void RunFolder::commit() {
  const fs::path old = target_.string() + ".old";
  std::error_code ec;
  fs::remove_all(old, ec);
  if (fs::exists(target_)) fs::rename(target_, old);
  fs::rename(staging_, target_);
  fs::remove_all(old, ec);
}

void RunFolder::abandon_interrupted(int run, int runs) {
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fail(Errc::run_failed, "interrupted during run {} of {}; {} is as it was before", run, runs, target_.string());
}

void tee_program_output(ProcessOptions& process, const RunOptions& options, const fs::path& log_file) {
  process.tee_file = log_file;
  if (options.quiet_app) return;
  process.tee_stdout_to = options.app_stdout_to_stderr ? STDERR_FILENO : STDOUT_FILENO;
  process.tee_stderr_to = STDERR_FILENO;
}

std::vector<fs::path> collect_traces(const RunOptions& options, const fs::path& trace_dir, const TraceTool& tool) {
  RunFolder folder(trace_dir);
  const fs::path& staging = folder.staging();

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
    const TracedRun plan = tool.plan(tmp.path(), options.command);
    fs::path log_file = folder.log_file(run);
    ProcessOptions p;
    p.argv = plan.argv;
    p.extra_env = plan.env;
    p.extra_env.insert(p.extra_env.end(), options.extra_env.begin(), options.extra_env.end());
    tee_program_output(p, options, log_file);
    if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
    for (const auto& [key, value] : plan.env) log::debug(fmt::format("run {} environment: {}={}", run, key, value));
    log::debug(fmt::format("run {} of {}: {}", run, options.runs, display_command(p.argv)));
    if (options.debug) {
      tmp.keep();
      log::debug(fmt::format("run {} keeps its temporary folder {}", run, tmp.path().string()));
    }
    ProcessResult r = run_process(p);
    if (r.cancelled) folder.abandon_interrupted(run, options.runs);
    auto dbs = find_result_databases(plan.output_dir);
    if (tool.finish_databases) tool.finish_databases(dbs);
    // Where this run's log is once the folder is (or is not) swapped in.
    auto log_after = [&](bool committed) { return (committed ? trace_dir : staging) / log_file.filename(); };
    if (!r.ok()) {
      if (auto refused = tool.refusal(plan); refused && !r.timed_out && r.exit_status == 3) {
        fail(Errc::missing_tool, "run {} of {}: {}", run, options.runs, *refused);
      }
      tmp.keep();  // what the tool left is a clue too
      std::string kept_note;
      keep(dbs, run);
      if (!kept.empty()) {
        folder.commit();
        kept_note = fmt::format("; the trace recorded so far is kept in {}", trace_dir.string());
      }
      fail(Errc::run_failed, "run {} of {}: {} {} (its output: {}){}", run, options.runs, display_command(options.command),
           r.describe(options.timeout_seconds.value_or(0)), log_after(!kept.empty()).string(), kept_note);
    }
    if (dbs.empty()) {
      tmp.keep();
      fail(Errc::run_failed, "run {} of {}: {} wrote no *_results.db under {}: no kernels were recorded (output: {})", run,
           options.runs, tool.name, plan.output_dir.string(), log_after(false).string());
    }
    keep(dbs, run);
  }
  folder.commit();
  return kept;
}

}  // namespace rpl::backends::detail
