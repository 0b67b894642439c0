#pragma once
// Reads rocpd v3 databases (rocprofv3 --output-format rocpd, ROCm 7; or the project's own writer)
// into the trace model. Several files merge into one Trace, one Source per file.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::trace {

/// The pages of an Nsight Compute report (.ncu-rep) as ncu --import exports them, as CSV.
struct NcuReportPages {
  std::string raw;              // --page raw --print-units base: a column per metric
  std::string details;          // --page details: its sections and ncu's rule rows; may be empty
  std::string details_problem;  // why details is empty, where ncu could not export it
  // --page raw --print-units base --metrics <thread instructions by opcode> --print-metric-instances
  // details: the full set's instruction mix (the raw page prints no instances, and all of them would
  // be a megabyte a launch); empty where ncu exports none
  std::string opcodes;
  std::string opcodes_problem;  // why opcodes is empty, where ncu could not export it
};

/// Reads every file; Error(bad_input) naming the file for anything that is not a readable rocpd
/// database (missing, empty, not SQLite, truncated, no rocpd tables, missing required columns).
struct ReadOptions {
  bool host_calls = false;  // also read the host API calls and markers (Trace::host_calls)
  // A report's pages: only ncu reads that binary format, so the workflows set this to run it
  // (backends::ncu_report_pages); without it a report is refused.
  std::function<NcuReportPages(const std::filesystem::path&)> ncu_report_pages;
};

Trace read_rocpd(const std::vector<std::filesystem::path>& files, const ReadOptions& options = {});

/// Adds one file's contents to trace as a new Source.
void read_rocpd_into(Trace& trace, const std::filesystem::path& file, const ReadOptions& options = {});

}  // namespace rpl::trace
