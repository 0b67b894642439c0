// rocm-perf isolate --kernel REGEX [--dispatch N] [--out DIR] -- CMD [ARGS...]: parses, calls
// workflow::run_isolate, prints.
#include <iostream>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/report/isolate_report.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/workflow/isolate.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

struct IsolateOptions {
  OutputOptions output;
  std::string kernel;
  uint64_t dispatch = 0;
  std::string out_dir = "rocm-perf-snapshot";
  std::string backend = "auto";
  double timeout = 0;
  bool quiet_app = false;
};

}  // namespace

Action add_isolate_command(CLI::App& app, const std::vector<std::string>& program) {
  auto o = std::make_shared<IsolateOptions>();
  auto* cmd = app.add_subcommand("isolate", "capture one kernel dispatch of a program into a snapshot folder, for replay");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("--kernel", o->kernel, "regular expression on the kernel's mangled or demangled name")->required();
  cmd->add_option("--dispatch", o->dispatch, "which launch of that kernel to capture, from 0")->capture_default_str();
  cmd->add_option("--out", o->out_dir, "the snapshot folder (replaced if it holds an earlier snapshot)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "auto, cuda, or rocm (the AMD capture has not run on AMD hardware yet)")
      ->check(CLI::IsMember({"auto", "cuda", "rocm"}))
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds the program may take before its process group is killed")->check(CLI::PositiveNumber);
  cmd->add_flag("--quiet-app", o->quiet_app, "keep the program's own output out of the terminal (it is kept in run.log)");
  return [o, program]() -> int {
    log::set_debug(o->output.debug);
    if (program.empty()) fail(Errc::bad_input, "give the program to run after --");
    StopSignals stop;  // Ctrl-C stops the program; the staging folder is removed on the way out
    workflow::IsolateRequest request{program, o->kernel, o->dispatch, o->out_dir, o->backend, o->timeout, o->quiet_app, o->output.json,
                                     o->output.debug, {}};
    workflow::Control control;
    const auto facts = workflow::run_isolate(request, control);
    const auto doc = report::isolate_json(facts);
    if (o->output.json) {
      std::cout << report::dump(doc);
    } else {
      std::cout << report::isolate_text(facts);
      print_warnings(facts.status.warnings);
    }
    return 0;
  };
}

}  // namespace rpl::cli
