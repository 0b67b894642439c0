// rocm-perf inspect FILE [--arch A] [--block N] [--json]
#include <iostream>

#include <rpl/analysis/inspect.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/text.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

struct InspectOptions {
  OutputOptions output;
  std::string file;
  std::string arch;
  std::string kernel;
  int block = 256;
};

}  // namespace

Action add_inspect_command(CLI::App& app) {
  auto o = std::make_shared<InspectOptions>();
  auto* cmd = app.add_subcommand("inspect", "static resources and occupancy of the kernels in a binary (no GPU needed)");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("file", o->file, "HSACO code object, clang offload bundle, or executable with embedded GPU code")->required();
  cmd->add_option("--arch", o->arch, "only the code for this architecture (sm_90 takes sm_90a too; sm_90a alone)");
  cmd->add_option("--kernel", o->kernel, "only the kernels whose mangled or demangled name matches this regular expression");
  cmd->add_option("--block", o->block, "block size for the occupancy")->capture_default_str();
  return [o]() -> int {
    analysis::InspectOptions options;
    if (!o->arch.empty()) options.arch = o->arch;
    if (!o->kernel.empty()) options.kernel_regex = o->kernel;
    options.block = o->block;
    auto report = analysis::inspect_binary(o->file, options);
    if (o->output.json) {
      report::write_inspect_json(std::cout, report);
    } else {
      std::cout << report::inspect_text(report);
      print_warnings(report.warnings);
    }
    return 0;
  };
}

}  // namespace rpl::cli
