#include <rpl/workflow/export.hpp>
#include <rpl/workflow/trace_inputs.hpp>

#include <cmath>

#include <rpl/analysis/dag.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/trace_reader.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;

ExportResult run_export(const ExportRequest& request, Control& control) {
  std::error_code ec;
  const auto databases = trace_files(request.databases);
  for (const auto& in : databases) {  // said before any work is done
    if (fs::equivalent(in, request.output, ec)) fail(Errc::bad_input, "{}: is one of the traces read; give another output file", request.output.string());
  }
  OutputFile file(request.output);  // opened first: a path that cannot be written fails before the traces are read
  control.stage_started("read");
  trace::ReadOptions read_options;
  read_options.host_calls = true;
  const auto trace = read_trace_files(databases, read_options);
  control.stage_finished("read");
  control.stage_started("dag");
  analysis::DagOptions dag_options;
  dag_options.infer_threshold_ns = std::llround(request.infer_threshold_us * 1000.0);
  dag_options.impact_kernels = 0;  // the export draws edges; it needs no impact estimates
  const auto dag = analysis::analyze_dag(trace, dag_options);
  control.stage_finished("dag");
  control.stage_started("write");
  ExportResult r{request.output, request.format, report::write_perfetto_trace(trace, dag, file.stream()), trace.warnings};
  file.commit();
  control.stage_finished("write");
  r.warnings.insert(r.warnings.end(), dag.warnings.begin(), dag.warnings.end());
  for (const auto& w : r.warnings) control.warning("read", w);
  return r;
}

nlohmann::json export_document(const ExportResult& r) {
  report::Json doc = report::document_header();
  doc["format"] = r.format;
  doc["output"] = r.output.string();
  doc["processes"] = r.counts.processes;
  doc["tracks"] = r.counts.tracks;
  doc["slices"] = r.counts.slices;
  doc["flows"] = r.counts.flows;
  doc["counter_events"] = r.counts.counter_events;
  doc["warnings"] = r.warnings;
  return doc;
}

}  // namespace rpl::workflow
