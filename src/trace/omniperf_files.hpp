#pragma once
// What the readers of Omniperf / rocprof-compute workloads share: the GPU of a workload's
// sysinfo.csv, and which pmc_perf.csv columns are counters.
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <rpl/trace/model.hpp>

#include "csv_rows.hpp"

namespace rpl::trace::detail {

/// sysinfo.csv's one row as an agent: Omniperf 1.x (gpu_soc, numCU, numSIMD, waveSize, sclk,
/// hbmBW), 2.x (gpu_arch, cu_per_gpu, ..., hbm_bw) or rocprof-compute 3.x (no hbm_bw).
Agent omniperf_gpu(const std::filesystem::path& sysinfo, int16_t source, const std::string& guid);

/// The counter columns of a pmc_perf.csv header, each with its index in trace.counter_names (added
/// there where new): every column but those named in metadata, each counter pass's repeats
/// (Wave_Size_1, Correlation_ID_1, Kernel_ID_1, XCC_Index) and the per-channel ones (TCC_HIT[0]:
/// their _sum is a column too).
std::vector<std::pair<size_t, uint32_t>> counter_columns(const CsvColumns& cols, const std::vector<std::string>& metadata, Trace& trace);

/// Adds the row's value of each counter column to trace.counter_values for the dispatch.
void add_counter_values(const CsvRow& row, const std::vector<std::pair<size_t, uint32_t>>& counters, uint32_t dispatch, Trace& trace);

}  // namespace rpl::trace::detail
