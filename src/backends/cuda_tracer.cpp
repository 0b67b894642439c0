#include <rpl/backends/cuda_tracer.hpp>

#include <dlfcn.h>

#include <rpl/backends/installed_files.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "traced_runs.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;

namespace {

constexpr int kRequiredDriverVersion = 13000;  // CUDA 13.0: the CUPTI the tracer is built with

}  // namespace

std::optional<std::string> nvidia_gpu_unavailable() {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return std::string("no NVIDIA driver (libcuda.so.1 cannot be loaded)");
  using InitFn = int (*)(unsigned);
  using IntFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(::dlsym(driver, "cuInit"));
  auto version = reinterpret_cast<IntFn>(::dlsym(driver, "cuDriverGetVersion"));
  auto count = reinterpret_cast<IntFn>(::dlsym(driver, "cuDeviceGetCount"));
  if (!init || !version || !count) return std::string("libcuda.so.1 lacks the CUDA driver API");
  int v = 0;
  if (version(&v) != 0) return std::string("cuDriverGetVersion failed");
  if (v < kRequiredDriverVersion) {
    return fmt::format("the NVIDIA driver supports CUDA {}.{}; the CUPTI tracer needs CUDA 13.0 or newer", v / 1000,
                       (v % 1000) / 10);
  }
  if (int rc = init(0); rc != 0) return fmt::format("no usable NVIDIA GPU (cuInit returned {})", rc);
  int devices = 0;
  if (count(&devices) != 0 || devices == 0) return std::string("no NVIDIA GPU found");
  return std::nullopt;
}

std::optional<std::string> nvidia_device_name(int ordinal) {
  if (nvidia_gpu_unavailable()) return std::nullopt;
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return std::nullopt;
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  auto get = reinterpret_cast<GetFn>(::dlsym(driver, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(::dlsym(driver, "cuDeviceGetName"));
  int device = 0;
  char buffer[256] = {};
  if (!get || !name || get(&device, ordinal) != 0 || name(buffer, sizeof buffer - 1, device) != 0) return std::nullopt;
  return std::string(buffer);
}

std::optional<fs::path> find_cupti_tracer() {
  return find_installed_file("RPL_CUPTI_TRACE_LIB", "librpl_cupti_trace.so");
}

namespace detail {

TraceTool cupti_tool(const RunOptions& options) {
  if (!options.command.empty()) check_program_exists(options);
  const auto library = find_cupti_tracer();
  if (!library) {
    fail(Errc::missing_tool, "rocm-perf's CUPTI tracer (librpl_cupti_trace.so) is not built: configure rocm-perf with the "
                             "CUDA toolkit installed, or set RPL_CUPTI_TRACE_LIB");
  }
  if (auto why = nvidia_gpu_unavailable()) fail(Errc::missing_tool, "cannot trace on NVIDIA: {}", *why);
  TraceTool tool;
  tool.name = "the CUPTI tracer";
  tool.plan = [library = *library, level = options.trace_level](const fs::path& run_dir, const std::vector<std::string>& command) {
    TracedRun run;
    run.output_dir = run_dir / "trace";
    fs::create_directories(run.output_dir);
    run.argv = command;
    run.env = {{"CUDA_INJECTION64_PATH", library.string()}, {"RPL_TRACE_DIR", run.output_dir.string()}, {"RPL_TRACE_LEVEL", level}};
    return run;
  };
  tool.refusal = [](const TracedRun& run) -> std::optional<std::string> {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(run.output_dir, ec)) {
      if (entry.path().extension() == ".refused") {
        std::string why = read_file(entry.path());
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return "the CUPTI tracer refused to run: " + why;
      }
    }
    return std::nullopt;
  };
  return tool;
}

}  // namespace detail

std::vector<fs::path> trace_with_cupti(const RunOptions& options, const fs::path& trace_dir) {
  return detail::collect_traces(options, trace_dir, detail::cupti_tool(options));
}

}  // namespace rpl::backends
