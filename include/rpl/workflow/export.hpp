#pragma once
// rocm-perf export as a library call: rocpd traces as a trace-event timeline for Perfetto or
// chrome://tracing, with the dependency DAG's edges as flows (docs/perfetto_export.md).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/report/perfetto_export.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct ExportRequest {
  std::vector<std::filesystem::path> databases;
  std::filesystem::path output;    // "-" for standard output
  std::string format = "perfetto";
  double infer_threshold_us = 10;  // where no event operations were recorded: as analyze; 0 infers nothing
};

struct ExportResult {
  std::filesystem::path output;
  std::string format;
  report::PerfettoExportCounts counts;
  std::vector<std::string> warnings;  // the trace's and the DAG's
};

/// Error(bad_input) where the output is one of the databases or cannot be written (before any
/// trace is read), or a database cannot be read.
ExportResult run_export(const ExportRequest& request, Control& control);

/// The JSON that export --json prints (schemas/export.schema.json).
nlohmann::json export_document(const ExportResult& result);

}  // namespace rpl::workflow
