#include <rpl/backends/run_options.hpp>

#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends {

void check_program_exists(const RunOptions& options) {
  if (options.command.empty()) fail(Errc::bad_input, "no program to run: give it after --, e.g. rocm-perf profile -- ./app");
  if (!find_executable(options.command[0])) {
    fail(Errc::bad_input, "{}: no such program (not an executable file, nor found in PATH)", options.command[0]);
  }
}

std::string choose_trace_backend() {
  if (find_rocprofv3()) return "rocm";
  const auto why_not_cuda = nvidia_gpu_unavailable();
  if (!why_not_cuda && find_cupti_tracer()) return "cuda";
  fail(Errc::missing_tool,
       "no profiler found: rocprofv3 is not in PATH or /opt/rocm/bin, and NVIDIA tracing is unavailable ({}); install ROCm "
       "7, or use --no-rocprof to time the whole program",
       why_not_cuda.value_or("rocm-perf was built without its CUPTI tracer"));
}

}  // namespace rpl::backends
