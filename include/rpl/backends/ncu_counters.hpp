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

std::vector<std::string> ncu_argv(const std::filesystem::path& ncu, const std::vector<std::string>& metrics,
                                  const std::vector<std::string>& command);

/// Samples of the given metrics from `ncu --csv --page raw --print-units base` output (whose raw
/// page also holds every device attribute), launches numbered per kernel in the order ncu
/// profiled them. Lines that are not part of the CSV table are ignored.
std::vector<trace::CounterSample> parse_ncu_csv(const std::string& output, const std::vector<std::string>& metrics);

/// Runs the program under ncu. Errors: missing_tool (no ncu), run_failed (ncu or the program
/// failed, timed out, or no kernel was profiled).
std::vector<trace::CounterSample> collect_ncu_counters(const RunOptions& options, const std::vector<std::string>& metrics);

}  // namespace rpl::backends
