// rocm-perf slurm-step: what autotune --launcher slurm runs inside each job step (hidden).
//   slurm-step --status FILE [--timeout S] -- PROGRAM ARGS...   runs the program, its outcome into FILE
//   slurm-step --probe FILE TOKEN                              says whether this node sees FILE holding TOKEN
// The status file tells the controller apart a program that failed from a step that Slurm ended:
// only a step whose program ran to its end (or past its timeout) leaves a finished status.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/slurm.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

std::string node_name() {
  if (const char* node = std::getenv("SLURMD_NODENAME"); node && *node) return node;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

int probe(const std::vector<std::string>& probe_args) {
  if (probe_args.size() != 2) fail(Errc::bad_input, "slurm-step --probe FILE TOKEN");
  std::string seen;
  try {
    seen = read_file(probe_args[0], 4096);
  } catch (const Error&) {
  }
  const bool sees = seen == probe_args[1];
  const auto gpu = backends::nvidia_device_name(0);
  std::cout << fmt::format("rocm-perf-probe {} {}{}\n", node_name(), sees ? "sees" : "blind", gpu ? " gpu " + *gpu : "");
  return sees ? 0 : exit_code(Errc::bad_input);
}

int run_step(const std::string& status_file, double timeout, const std::vector<std::string>& program) {
  if (program.empty()) fail(Errc::bad_input, "slurm-step: give the program after --");
  backends::StepStatus status;
  status.node = node_name();
  backends::write_step_status(status_file, status);
  ProcessOptions p;
  p.argv = program;
  if (timeout > 0) p.timeout = std::chrono::duration<double>(timeout);
  status.finished = true;
  int code = 0;
  try {
    status.process = run_process(p);
    const auto& r = status.process;
    code = r.timed_out ? 124 : r.term_signal ? 128 + r.term_signal : r.exit_status;
  } catch (const Error& e) {  // the program is not there or cannot run
    status.error = e.what();
    std::cerr << "rocm-perf slurm-step: " << e.what() << "\n";
    code = 127;
  }
  backends::write_step_status(status_file, status);
  return code;
}

}  // namespace

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
    if (!o->probe.empty()) return probe(o->probe);
    if (o->status.empty()) fail(Errc::bad_input, "slurm-step: give --status FILE or --probe FILE TOKEN");
    return run_step(o->status, o->timeout, program);
  };
}

}  // namespace rpl::cli
