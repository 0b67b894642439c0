#pragma once
// The counter pass on NVIDIA: the program run once more under Nsight Compute (ncu) with an
// explicit metric list, CSV in base units, every kernel launch profiled, at the clocks the
// program runs with (--clock-control none), so rates agree with the traced timings.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <rpl/backends/run_options.hpp>
#include <rpl/trace/rocpd_counters.hpp>

namespace rpl::backends {

/// What a roofline and an occupancy check need: time, cycles, DRAM bytes, FP32/FP64 instruction
/// counts, registers and occupancy (reference/cuda.md §4.1).
std::vector<std::string> default_ncu_metrics();

/// ncu from PATH, else /usr/local/cuda/bin.
std::optional<std::filesystem::path> find_ncu();

/// Which launches ncu replays: its replay is slow on programs with thousands of launches.
struct NcuSelection {
  std::optional<std::string> kernel_regex;  // ncu -k regex:...
  std::optional<int> launch_count;          // ncu -c N: launches profiled in all
};

std::vector<std::string> ncu_argv(const std::filesystem::path& ncu, const std::vector<std::string>& metrics,
                                  const std::vector<std::string>& command, const NcuSelection& selection = {});

/// The metric base names ("dram__bytes_read") ncu can collect on this machine's GPU, from
/// `ncu --query-metrics`; none when the query fails.
std::optional<std::vector<std::string>> query_ncu_metrics(const std::filesystem::path& ncu);

/// Metrics whose base name is among those available, in their order; the others in dropped.
std::vector<std::string> supported_metrics(const std::vector<std::string>& metrics,
                                           const std::vector<std::string>& available,
                                           std::vector<std::string>& dropped);

/// Samples of the given metrics from `ncu --csv --page raw --print-units base` output (whose raw
/// page also holds every device attribute), launches numbered per kernel in the order ncu
/// profiled them. Lines that are not part of the CSV table are ignored.
std::vector<trace::CounterSample> parse_ncu_csv(const std::string& output, const std::vector<std::string>& metrics);

/// What a counter pass gave: the samples, and the metrics of `if_available` this GPU's ncu lacks.
struct NcuCounters {
  std::vector<trace::CounterSample> samples;
  std::vector<std::string> dropped;
};

/// Runs the program under ncu for `metrics`, and for those of `if_available` that this GPU's ncu
/// lists (`--query-metrics` lists hardware counters, not launch attributes or ratios, so only
/// counters belong there; the others are `dropped`, for the caller to say what that costs).
/// Errors: missing_tool (no ncu, or ncu may not read the GPU's counters), run_failed (ncu or the
/// program failed, timed out, or no kernel was profiled).
NcuCounters collect_ncu_counters(const RunOptions& options, const std::vector<std::string>& metrics,
                                 const NcuSelection& selection = {}, const std::vector<std::string>& if_available = {});

}  // namespace rpl::backends
