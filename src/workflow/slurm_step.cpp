#include <rpl/workflow/slurm_step.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/slurm.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::workflow {
namespace {

std::string node_name() {
  if (const char* node = std::getenv("SLURMD_NODENAME"); node && *node) return node;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

int run_slurm_step(const std::filesystem::path& status_file, double timeout, const std::vector<std::string>& program,
                   std::string* error) {
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
    if (error) *error = e.what();
    code = 127;
  }
  backends::write_step_status(status_file, status);
  return code;
}

NodeProbe probe_node(const std::filesystem::path& file, const std::string& token) {
  std::string seen;
  try {
    seen = read_file(file, 4096);
  } catch (const Error&) {
  }
  return {node_name(), seen == token, backends::nvidia_device_name(0)};
}

}  // namespace rpl::workflow
