#pragma once
// Nsight Compute's reports (ncu -o R writes R.ncu-rep) are a binary format that only ncu reads:
// analyze and the other readers of traces get a report's raw and details pages from ncu --import,
// as CSV.
#include <filesystem>
#include <string>

#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::backends {

/// The report's raw page (a column per metric, in base units), as `ncu --import REPORT --csv
/// --page raw --print-units base` prints it, and its details page (`--page details`: ncu's rules).
/// Error(missing_tool) where ncu is not installed, naming the command to run where it is;
/// Error(bad_input) where ncu cannot read the report, with ncu's own words. A details page ncu
/// cannot export is left empty, with why.
trace::NcuReportPages ncu_report_pages(const std::filesystem::path& report);

}  // namespace rpl::backends
