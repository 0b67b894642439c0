#pragma once
// Readers of the files that AMD's profilers write besides rocpd, into the trace model that the
// rocpd reader fills (docs/trace-formats.md says which layouts, and what each one lacks).
#include <filesystem>

#include <rpl/trace/model.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::trace {

/// rocprofv3 --output-format csv (ROCm 6.2 to 7.x): the run whose kernel trace is `kernel_trace`
/// (`[<prefix>]kernel_trace.csv`), with the agent_info.csv, memory_copy_trace.csv,
/// hip_api_trace.csv (with options.host_calls, its calls) and counter_collection.csv of the same
/// prefix beside it where present; or a run of counters alone, whose `[<prefix>]counter_collection.csv`
/// then gives the dispatches (ROCm 7 layouts, which time them). Adds one Source. Error(bad_input)
/// naming the file for a layout it does not know or a malformed file.
void read_rocprofv3_csv_into(Trace& trace, const std::filesystem::path& file, const ReadOptions& options = {});

/// The file that stands for a rocprofv3 CSV run: a counter_collection.csv with its run's
/// kernel_trace.csv beside it stands for that kernel trace; any other file for itself.
std::filesystem::path rocprofv3_run_file(const std::filesystem::path& file);

/// rocprofv3 --output-format json (`<pid>_results.json`): {"rocprofiler-sdk-tool": [one object per
/// process: metadata, agents, kernel_symbols, buffer_records {kernel_dispatch, memory_copy, hip_api,
/// hsa_api, marker_api}, strings]}: hipDeviceSynchronize as a host wait, and with options.host_calls
/// every API call. Adds one Source.
void read_rocprofv3_json_into(Trace& trace, const std::filesystem::path& file, const ReadOptions& options = {});

/// rocprof-compute (Omniperf 2.x and later) workload folder: its pmc_perf.csv, a row per dispatch
/// with its counters (for the roofline and the counter rules), and sysinfo.csv beside it, the GPU.
/// Adds one Source.
void read_rocprof_compute_into(Trace& trace, const std::filesystem::path& pmc_perf);

/// Legacy rocprof (ROCm 5.x to 6.x, `rocprof --stats [--hip-trace] [--timestamp on]`): results.csv,
/// one row per dispatch. Adds one Source.
void read_rocprof_v1_into(Trace& trace, const std::filesystem::path& results_csv);

/// Legacy rocprof's results.db, whose KERN table holds results.csv's rows. Adds one Source.
void read_rocprof_v1_database_into(Trace& trace, const std::filesystem::path& results_db);

}  // namespace rpl::trace
