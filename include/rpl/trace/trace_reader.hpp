#pragma once
// Reads trace files of any format the project knows into one Trace: the format of each file is
// found from its content (the SQLite header, a CSV's columns), never from its name.
#include <filesystem>
#include <optional>
#include <vector>

#include <rpl/trace/model.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::trace {

enum class TraceFormat {
  rocpd,          // a SQLite database of rocpd tables (rocprofv3 ROCm 7, the CUPTI tracer)
  rocprofv3_csv,  // rocprofv3's kernel_trace.csv, with the files of its run beside it
  rocprofv3_json, // rocprofv3's --output-format json
  rocprof_v1,     // legacy rocprof's results.csv
  rocprof_v1_database,  // legacy rocprof's results.db (a KERN table)
  rocprof_compute,  // a rocprof-compute workload's pmc_perf.csv, with sysinfo.csv beside it
  kineto,         // a PyTorch profiler trace (Kineto's Chrome trace JSON)
  nsys_sqlite,    // an Nsight Systems export (nsys export --type sqlite)
  ncu_csv,        // Nsight Compute's CSV (ncu --csv), its details or raw page
  ncu_report,     // an Nsight Compute report (ncu -o R: R.ncu-rep), read through ReadOptions::ncu_report_pages
};

/// What the file is, from its first bytes; nothing for a file of no format read here.
std::optional<TraceFormat> trace_format(const std::filesystem::path& file);

/// Reads every file, each by its format, as one Source each. Error(bad_input) naming the file for a
/// file of no known format (saying what it looked like), or one its reader refuses.
Trace read_traces(const std::vector<std::filesystem::path>& files, const ReadOptions& options = {});

}  // namespace rpl::trace
