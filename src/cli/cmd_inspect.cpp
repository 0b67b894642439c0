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
  int block = 256;
};

}  // namespace

Action add_inspect_command(CLI::App& app) {
  auto o = std::make_shared<InspectOptions>();
  auto* cmd = app.add_subcommand("inspect", "static resources and occupancy of the kernels in a binary (no GPU needed)");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("file", o->file, "HSACO code object, clang offload bundle, or executable with embedded GPU code")->required();
  cmd->add_option("--arch", o->arch, "only the code for this architecture");
  cmd->add_option("--block", o->block, "block size for the occupancy")->capture_default_str();
  return [o]() -> int {
    std::optional<std::string> arch;
    if (!o->arch.empty()) arch = o->arch;
    auto report = analysis::inspect_binary(o->file, arch, o->block);
    if (o->output.json) {
      std::cout << report::dump(report::inspect_json(report));
    } else {
      std::cout << report::inspect_text(report);
      print_warnings(report.warnings);
    }
    return 0;
  };
}

}  // namespace rpl::cli
