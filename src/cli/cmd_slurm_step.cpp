// rocm-perf slurm-step: what autotune --launcher slurm runs inside each job step (hidden).
//   slurm-step --status FILE [--timeout S] -- PROGRAM ARGS...   runs the program, its outcome into FILE
//   slurm-step --probe FILE TOKEN                              says whether this node sees FILE holding TOKEN
// (workflow/slurm_step.hpp)
#include <iostream>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/workflow/slurm_step.hpp>

#include "commands.hpp"

namespace rpl::cli {

Action add_slurm_step_command(CLI::App& app, const std::vector<std::string>& program) {
  struct Options {
    std::string status;
    double timeout = 0;
    std::vector<std::string> probe;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("slurm-step", "");  // no description: internal, not listed in --help
  cmd->group("");
  cmd->add_option("--status", o->status);
  cmd->add_option("--timeout", o->timeout);
  cmd->add_option("--probe", o->probe)->expected(2);
  return [o, &program]() -> int {
    if (!o->probe.empty()) {
      const auto p = workflow::probe_node(o->probe[0], o->probe[1]);
      std::cout << fmt::format("rocm-perf-probe {} {}{}\n", p.node, p.sees ? "sees" : "blind", p.gpu ? " gpu " + *p.gpu : "");
      return p.sees ? 0 : exit_code(Errc::bad_input);
    }
    if (o->status.empty()) fail(Errc::bad_input, "slurm-step: give --status FILE or --probe FILE TOKEN");
    std::string error;
    const int code = workflow::run_slurm_step(o->status, o->timeout, program, &error);
    if (!error.empty()) std::cerr << "rocm-perf slurm-step: " << error << "\n";
    return code;
  };
}

}  // namespace rpl::cli
