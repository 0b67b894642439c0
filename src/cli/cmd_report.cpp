// rocm-perf report OUT_DIR [-o report.html] [--trace DB...]: parses, calls workflow::run_report.
#include <iostream>

#include <fmt/format.h>

#include <rpl/core/output_file.hpp>
#include <rpl/core/log.hpp>
#include <rpl/workflow/report.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
namespace {

struct ReportOptions {
  bool debug = false;
  std::string folder;
  std::string output;
  std::vector<std::string> traces;
};

}  // namespace

Action add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "write a self-contained HTML report of a profile folder");
  cmd->add_option("folder", o->folder, "the folder that rocm-perf profile (or analyze --out, optimize --out, autotune --out) wrote")->required();
  cmd->add_option("-o,--output", o->output, "the HTML file to write (default: FOLDER/report.html; - for stdout)");
  cmd->add_option("--trace", o->traces,
                  "rocpd databases whose timeline the report shows (default: the folder's first run; analyze --out keeps none)");
  cmd->add_flag("--debug", o->debug, "print the commands run and keep temporary folders");
  return [o]() -> int {
    log::set_debug(o->debug);
    const fs::path output = o->output.empty() ? fs::path(o->folder) / "report.html" : fs::path(o->output);
    workflow::Control control;
    workflow::run_report({o->folder, output, {o->traces.begin(), o->traces.end()}, {}}, control);
    (is_standard_output(output) ? std::cerr : std::cout) << fmt::format("wrote {}\n", output.string());
    return 0;
  };
}

}  // namespace rpl::cli
