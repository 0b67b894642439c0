// rocm-perf export --format perfetto TRACE.db [...] -o trace.json: parses, calls
// workflow::run_export, prints.
#include <iostream>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/text.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/workflow/export.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

struct ExportOptions {
  OutputOptions output;
  workflow::ExportRequest request;
  std::vector<std::string> databases;
  std::string output_file;
};

}  // namespace

Action add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand("export", "export rocpd traces as a timeline for Perfetto or chrome://tracing");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("--format", o->request.format, "output format")->check(CLI::IsMember({"perfetto"}))->capture_default_str();
  cmd->add_option("databases", o->databases, "rocpd databases, or folders that rocm-perf profile wrote")->required();
  cmd->add_option("-o,--output", o->output_file, "the trace-event JSON file to write (- for stdout)")->required();
  cmd->add_option("--dag-infer-threshold-us", o->request.infer_threshold_us,
                  "for traces that recorded no event operations: the gap within which a dependency is inferred "
                  "(as analyze; 0: infer nothing)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  return [o]() -> int {
    log::set_debug(o->output.debug);
    o->request.databases.assign(o->databases.begin(), o->databases.end());
    o->request.output = o->output_file;
    const bool to_stdout = is_standard_output(o->request.output);
    if (to_stdout && o->output.json) fail(Errc::bad_input, "-o {} and --json both write to stdout; give -o a file", o->output_file);
    workflow::Control control;
    const auto r = workflow::run_export(o->request, control);
    if (o->output.json) {
      std::cout << report::dump(workflow::export_document(r));
    } else {
      print_warnings(r.warnings);
      (to_stdout ? std::cerr : std::cout) << fmt::format(
          "wrote {}: {}, {}, {}, {}, {}\n", r.output.string(), counted(r.counts.processes, "process", "processes"),
          counted(r.counts.tracks, "track"), counted(r.counts.slices, "slice"), counted(r.counts.flows, "dependency flow"),
          counted(r.counts.counter_events, "counter event"));
    }
    return 0;
  };
}

}  // namespace rpl::cli
