// rocm-perf export --format perfetto TRACE.db [...] -o trace.json
#include <cmath>
#include <iostream>

#include <rpl/analysis/dag.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/perfetto_export.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
namespace {

struct ExportOptions {
  OutputOptions output;
  std::string format = "perfetto";
  std::vector<std::string> databases;
  std::string output_file;
  double infer_threshold_us = 10;
};

// The output must not be one of the traces read: say so before any work is done.
void check_not_an_input(const fs::path& out, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  for (const auto& in : inputs) {
    if (fs::equivalent(in, out, ec)) fail(Errc::bad_input, "{}: is one of the traces read; give another output file", out.string());
  }
}

}  // namespace

Action add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "export rocpd traces as a timeline for Perfetto or chrome://tracing");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("--format", o->format, "output format")->check(CLI::IsMember({"perfetto"}))->capture_default_str();
  cmd->add_option("databases", o->databases, "rocpd databases")->required();
  cmd->add_option("-o,--output", o->output_file, "the trace-event JSON file to write (- for stdout)")->required();
  cmd->add_option("--dag-infer-threshold-us", o->infer_threshold_us,
                  "for traces that recorded no event operations: the gap within which a dependency is inferred "
                  "(as analyze; 0: infer nothing)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  return [o]() -> int {
    log::set_debug(o->output.debug);
    const std::vector<fs::path> files(o->databases.begin(), o->databases.end());
    const fs::path out = o->output_file;
    const bool to_stdout = is_standard_output(out);
    if (to_stdout && o->output.json) fail(Errc::bad_input, "-o {} and --json both write to stdout; give -o a file", out.string());
    check_not_an_input(out, files);
    OutputFile file(out);  // opened first: a path that cannot be written fails before the traces are read
    trace::ReadOptions read_options;
    read_options.host_calls = true;
    const auto trace = trace::read_rocpd(files, read_options);
    analysis::DagOptions dag_options;
    dag_options.infer_threshold_ns = std::llround(o->infer_threshold_us * 1000.0);
    dag_options.impact_kernels = 0;  // the export draws edges; it needs no impact estimates
    const auto dag = analysis::analyze_dag(trace, dag_options);
    const auto counts = report::write_perfetto_trace(trace, dag, file.stream());
    file.commit();
    auto warnings = trace.warnings;
    warnings.insert(warnings.end(), dag.warnings.begin(), dag.warnings.end());
    if (o->output.json) {
      report::Json doc = report::document_header();
      doc["format"] = o->format;
      doc["output"] = out.string();
      doc["processes"] = counts.processes;
      doc["tracks"] = counts.tracks;
      doc["slices"] = counts.slices;
      doc["flows"] = counts.flows;
      doc["counter_events"] = counts.counter_events;
      doc["warnings"] = warnings;
      std::cout << report::dump(doc);
    } else {
      print_warnings(warnings);
      (to_stdout ? std::cerr : std::cout) << fmt::format("wrote {}: {} processes, {} tracks, {} slices, {} dependency flows, {} counter events\n",
                               out.string(), counts.processes, counts.tracks, counts.slices, counts.flows,
                               counts.counter_events);
    }
    return 0;
  };
}

}  // namespace rpl::cli
