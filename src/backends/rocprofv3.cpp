#include <rpl/backends/rocprofv3.hpp>

#include <algorithm>
#include <map>
#include <regex>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/trace/rocpd_writer.hpp>

#include "traced_runs.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;

std::optional<fs::path> find_rocprofv3() {
  return find_executable("rocprofv3", {"/opt/rocm/bin"});
}

namespace {

// rocprofv3 names each process's database after this pattern, expanded inside that process (its
// output keys: %env{NAME}% is the process's variable, empty where it has none). The rank that
// srun, Open MPI or a PMI launcher gave a process lands in its file's name, where
// record_ranks finds it.
constexpr const char* kOutputName = "%hostname%/%pid%.rank-s%env{SLURM_PROCID}%-o%env{OMPI_COMM_WORLD_RANK}%-p%env{PMI_RANK}%";

// The rank in a database's name, the launchers in the CUPTI tracer's order: srun's, Open MPI's, PMI's.
std::optional<int> rank_in_name(const std::string& name) {
  static const std::regex kRanked(R"(\.rank-s([0-9]*)-o([0-9]*)-p([0-9]*)_results\.db$)");
  std::smatch m;
  if (!std::regex_search(name, m, kRanked)) return std::nullopt;
  for (size_t i = 1; i <= 3; ++i) {
    if (m[i].length() > 0 && m[i].length() < 9) return std::stoi(m[i].str());
  }
  return std::nullopt;
}

// Each ranked database says its rank as the CUPTI tracer's do (rpl_rank), whatever its file is
// named later.
void record_ranks(const std::vector<fs::path>& dbs) {
  for (const auto& db : dbs) {
    const auto rank = rank_in_name(db.filename().string());
    if (!rank) continue;
    try {
      trace::add_rocpd_metadata(db, "rpl_rank", std::to_string(*rank));
    } catch (const Error& e) {
      log::debug(fmt::format("the rank of {} is not recorded: {}", db.string(), e.what()));
    }
  }
}

}  // namespace

std::vector<std::string> rocprofv3_trace_argv(const fs::path& rocprofv3, const fs::path& output_dir,
                                              const std::vector<std::string>& command, const std::string& level) {
  // Copies and the HIP API calls (event records and waits, with their arguments) give the DAG its
  // nodes and explicit edges (docs/dependencies.md); level kernels leaves the HIP calls out, level
  // full adds the ROCTx markers.
  std::vector<std::string> argv = {rocprofv3.string(), "--kernel-trace", "--memory-copy-trace"};
  if (level != "kernels") argv.push_back("--hip-runtime-trace");
  if (level == "full") argv.push_back("--marker-trace");
  argv.insert(argv.end(), {"--output-format", "rocpd", "-d", output_dir.string(), "-o", kOutputName, "--"});
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> rocprofv3_counter_argv(const fs::path& rocprofv3, const fs::path& output_dir,
                                                const std::vector<std::string>& counters,
                                                const std::vector<std::string>& command) {
  std::vector<std::string> argv = {rocprofv3.string(), "--pmc"};
  argv.insert(argv.end(), counters.begin(), counters.end());
  argv.insert(argv.end(), {"--output-format", "rocpd", "-d", output_dir.string(), "--"});
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

namespace {

// The counter values of a pass's databases, launches numbered per kernel in start order.
std::vector<trace::CounterSample> pass_samples(const fs::path& dir) {
  std::vector<fs::path> dbs;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".db") dbs.push_back(e.path());
  }
  std::sort(dbs.begin(), dbs.end());
  std::vector<trace::CounterSample> samples;
  if (dbs.empty()) return samples;
  const auto t = trace::read_rocpd(dbs);
  std::vector<uint32_t> order(t.dispatches.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return t.dispatches[a].start_ns < t.dispatches[b].start_ns;
  });
  std::vector<size_t> launch(t.dispatches.size());
  std::map<std::string, size_t> launches;
  for (uint32_t i : order) launch[i] = launches[t.symbols[static_cast<size_t>(t.dispatches[i].symbol)].mangled_name]++;
  for (const auto& v : t.counter_values) {
    samples.push_back({t.symbols[static_cast<size_t>(t.dispatches[v.dispatch].symbol)].mangled_name, launch[v.dispatch],
                       t.counter_names[v.counter], "", v.value});
  }
  return samples;
}

}  // namespace

std::vector<trace::CounterSample> collect_rocprofv3_counters(const RunOptions& options,
                                                             const std::vector<std::vector<std::string>>& passes) {
  auto rocprofv3 = find_rocprofv3();
  if (!rocprofv3) fail(Errc::missing_tool, "rocprofv3 not found in PATH or /opt/rocm/bin: install ROCm 7 (rocprofiler-sdk)");
  check_program_exists(options);
  std::vector<trace::CounterSample> samples;
  for (size_t i = 0; i < passes.size(); ++i) {
    TempDir tmp("rocm-perf-pmc-");
    ProcessOptions p;
    p.argv = rocprofv3_counter_argv(*rocprofv3, tmp.path() / "rocprofv3", passes[i], options.command);
    p.output_file = tmp.path() / "pass.log";
    if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
    log::debug(fmt::format("counter pass {} of {}: {}", i + 1, passes.size(), display_command(p.argv)));
    if (options.debug) tmp.keep();
    ProcessResult r = run_process(p);
    if (!r.ok()) {
      tmp.keep();
      fail(Errc::run_failed, "counter pass {} of {}: {} {} (its output: {})", i + 1, passes.size(),
           display_command(p.argv), r.describe(options.timeout_seconds.value_or(0)), (tmp.path() / "pass.log").string());
    }
    auto pass = pass_samples(tmp.path() / "rocprofv3");
    if (pass.empty()) {
      tmp.keep();
      fail(Errc::run_failed, "counter pass {} of {} recorded no counter values (its output: {})", i + 1, passes.size(),
           (tmp.path() / "pass.log").string());
    }
    samples.insert(samples.end(), pass.begin(), pass.end());
  }
  return samples;
}

std::vector<std::string> rocprofv3_att_argv(const fs::path& rocprofv3, const fs::path& output_dir,
                                            const std::string& kernel_regex, int target_cu,
                                            const std::vector<std::string>& command) {
  std::vector<std::string> argv = {rocprofv3.string(), "--att", "--att-target-cu", std::to_string(target_cu),
                                   "--kernel-include-regex", kernel_regex, "-d", output_dir.string(), "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

fs::path collect_thread_trace(const RunOptions& options, const std::string& kernel_regex, int target_cu,
                              const fs::path& destination) {
  auto rocprofv3 = find_rocprofv3();
  if (!rocprofv3) fail(Errc::missing_tool, "rocprofv3 not found in PATH or /opt/rocm/bin: install ROCm 7 (rocprofiler-sdk)");
  check_program_exists(options);
  TempDir tmp("rocm-perf-att-");
  ProcessOptions p;
  p.argv = rocprofv3_att_argv(*rocprofv3, tmp.path() / "rocprofv3", kernel_regex, target_cu, options.command);
  p.output_file = tmp.path() / "att.log";
  if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
  log::debug(fmt::format("thread-trace pass: {}", display_command(p.argv)));
  if (options.debug) tmp.keep();
  ProcessResult r = run_process(p);
  if (!r.ok()) {
    tmp.keep();
    fail(Errc::run_failed, "thread-trace pass: {} {} (its output: {})", display_command(p.argv),
         r.describe(options.timeout_seconds.value_or(0)), (tmp.path() / "att.log").string());
  }
  // Decoded dispatches: ui_output_agent_<agent>_dispatch_<id>/ folders holding code.json.
  std::vector<fs::path> decoded;
  std::error_code ec;
  if (fs::is_directory(tmp.path() / "rocprofv3", ec)) {
    for (const auto& e : fs::recursive_directory_iterator(tmp.path() / "rocprofv3")) {
      if (e.is_directory() && e.path().filename().string().rfind("ui_output_agent_", 0) == 0 &&
          fs::is_regular_file(e.path() / "code.json", ec)) {
        decoded.push_back(e.path());
      }
    }
  }
  if (decoded.empty()) {
    tmp.keep();
    fail(Errc::run_failed, "thread-trace pass decoded nothing (is the ROCprof trace decoder installed? did a kernel match "
                           "'{}'?); its output: {}",
         kernel_regex, (tmp.path() / "att.log").string());
  }
  std::sort(decoded.begin(), decoded.end());
  fs::remove_all(destination, ec);
  fs::create_directories(destination.parent_path());
  fs::rename(decoded.front(), destination, ec);
  if (ec) fs::copy(decoded.front(), destination, fs::copy_options::recursive);
  return destination;
}

namespace detail {

TraceTool rocprofv3_tool(const RunOptions& options) {
  auto rocprofv3 = find_rocprofv3();
  if (!rocprofv3) {
    fail(Errc::missing_tool,
         "rocprofv3 not found in PATH or /opt/rocm/bin: install ROCm 7 (rocprofiler-sdk), or use --no-rocprof to time the "
         "whole program");
  }
  if (!options.command.empty()) check_program_exists(options);
  TraceTool tool;
  tool.name = "rocprofv3";
  tool.plan = [rocprofv3 = *rocprofv3, level = options.trace_level](const fs::path& run_dir,
                                                                      const std::vector<std::string>& command) {
    TracedRun run;
    run.output_dir = run_dir / "rocprofv3";
    run.argv = rocprofv3_trace_argv(rocprofv3, run.output_dir, command, level);
    return run;
  };
  tool.refusal = [](const TracedRun&) { return std::optional<std::string>(); };
  tool.finish_databases = record_ranks;
  return tool;
}

}  // namespace detail

std::vector<fs::path> trace_with_rocprofv3(const RunOptions& options, const fs::path& trace_dir) {
  return detail::collect_traces(options, trace_dir, detail::rocprofv3_tool(options));
}

}  // namespace rpl::backends
