#include <rpl/backends/ncu_counters.hpp>

#include <algorithm>
#include <map>
#include <sstream>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

#include "ncu_csv.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;
using detail::csv_fields;
using detail::csv_number;

std::vector<std::string> default_ncu_metrics() {
  return {"gpu__time_duration.sum",
          "sm__cycles_elapsed.avg",
          "dram__bytes_read.sum",
          "dram__bytes_write.sum",
          "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
          "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
          "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
          "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
          "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
          "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
          "launch__registers_per_thread",
          "sm__maximum_warps_per_active_cycle_pct",
          "sm__warps_active.avg.pct_of_peak_sustained_active"};
}

std::optional<fs::path> find_ncu() {
  return find_executable("ncu", {"/usr/local/cuda/bin"});
}

std::vector<std::string> ncu_argv(const fs::path& ncu, const std::vector<std::string>& metrics,
                                  const std::vector<std::string>& command, const NcuSelection& selection) {
  std::string list;
  for (const auto& m : metrics) list += (list.empty() ? "" : ",") + m;
  std::vector<std::string> argv = {ncu.string(), "--csv", "--page", "raw", "--print-units", "base", "--print-kernel-base",
                                   "mangled", "--target-processes", "all", "--clock-control", "none", "--metrics", list};
  if (selection.kernel_regex) argv.insert(argv.end(), {"--kernel-name", "regex:" + *selection.kernel_regex});
  if (selection.launch_count) argv.insert(argv.end(), {"--launch-count", std::to_string(*selection.launch_count)});
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::optional<std::vector<std::string>> query_ncu_metrics(const fs::path& ncu) {
  ProcessOptions p;
  p.argv = {ncu.string(), "--query-metrics"};
  p.capture_output = true;
  p.timeout = std::chrono::duration<double>(60);
  ProcessResult r = run_process(p);
  if (!r.ok()) return std::nullopt;
  std::vector<std::string> names;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const auto end = line.find_first_of(" \t");
    const std::string name = line.substr(0, end);
    if (name.find("__") != std::string::npos && name.find('.') == std::string::npos) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> supported_metrics(const std::vector<std::string>& metrics, const std::vector<std::string>& available,
                                           std::vector<std::string>& dropped) {
  std::vector<std::string> kept;
  for (const auto& m : metrics) {
    const std::string base = m.substr(0, m.find('.'));
    (std::binary_search(available.begin(), available.end(), base) ? kept : dropped).push_back(m);
  }
  return kept;
}

std::vector<trace::CounterSample> parse_ncu_csv(const std::string& output, const std::vector<std::string>& metrics) {
  std::vector<trace::CounterSample> samples;
  std::vector<std::string> header, units;
  std::map<std::string, size_t> launches;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("\"ID\",", 0) == 0) {
      header = csv_fields(line);
      units.clear();
      continue;
    }
    if (header.empty() || line.empty() || line[0] != '"') continue;
    auto fields = csv_fields(line);
    if (fields.size() != header.size()) continue;
    auto column = [&](const char* name) -> std::optional<size_t> {
      auto it = std::find(header.begin(), header.end(), name);
      return it == header.end() ? std::nullopt : std::optional<size_t>(static_cast<size_t>(it - header.begin()));
    };
    const auto kernel_col = column("Kernel Name");
    const auto id_col = column("ID");
    if (!kernel_col || !id_col) continue;
    if (!csv_number(fields[*id_col])) {  // the units row after the header
      units = fields;
      continue;
    }
    const std::string& kernel = fields[*kernel_col];
    const size_t launch = launches[kernel]++;
    for (size_t i = 0; i < header.size(); ++i) {
      if (std::find(metrics.begin(), metrics.end(), header[i]) == metrics.end()) continue;
      if (auto v = csv_number(fields[i])) {
        samples.push_back({kernel, launch, header[i], i < units.size() ? units[i] : "", *v});
      }
    }
  }
  return samples;
}

NcuCounters collect_ncu_counters(const RunOptions& options, const std::vector<std::string>& required,
                                 const NcuSelection& selection, const std::vector<std::string>& if_available) {
  const auto ncu = find_ncu();
  if (!ncu) {
    fail(Errc::missing_tool, "ncu (Nsight Compute) not found in PATH or /usr/local/cuda/bin: install it, or profile "
                             "without --counters/--roofline");
  }
  check_program_exists(options);
  NcuCounters out;
  std::vector<std::string> metrics = required;
  if (!if_available.empty()) {
    const auto available = query_ncu_metrics(*ncu);
    const auto kept = available ? supported_metrics(if_available, *available, out.dropped) : if_available;
    metrics.insert(metrics.end(), kept.begin(), kept.end());
  }
  TempDir tmp("rocm-perf-ncu-");
  ProcessOptions p;
  p.argv = ncu_argv(*ncu, metrics, options.command, selection);
  p.output_file = tmp.path() / "ncu.csv";
  if (options.timeout_seconds) p.timeout = std::chrono::duration<double>(*options.timeout_seconds);
  log::debug(fmt::format("counter pass: {}", display_command(p.argv)));
  if (options.debug) tmp.keep();
  ProcessResult r = run_process(p);
  const std::string output = read_file(tmp.path() / "ncu.csv");
  if (output.find("ERR_NVGPUCTRPERM") != std::string::npos) tmp.keep();
  detail::fail_if_counters_forbidden("counter pass", output, tmp.path() / "ncu.csv");
  if (!r.ok()) {
    tmp.keep();
    fail(Errc::run_failed, "counter pass: {} {} (its output: {})", display_command(p.argv),
         r.describe(options.timeout_seconds.value_or(0)), (tmp.path() / "ncu.csv").string());
  }
  out.samples = parse_ncu_csv(output, metrics);
  if (out.samples.empty()) {
    tmp.keep();
    fail(Errc::run_failed, "counter pass: ncu profiled no kernel (its output: {})", (tmp.path() / "ncu.csv").string());
  }
  return out;
}

}  // namespace rpl::backends
