#include <rpl/backends/run_options.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends {

void check_program_exists(const RunOptions& options) {
  if (options.command.empty()) fail(Errc::bad_input, "no program to run: give it after --, e.g. rocm-perf profile -- ./app");
  if (!find_executable(options.command[0])) {
    fail(Errc::bad_input, "{}: no such program (not an executable file, nor found in PATH)", options.command[0]);
  }
}

}  // namespace rpl::backends
