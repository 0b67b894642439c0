#include <rpl/backends/rocprofv3.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

#include "traced_runs.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;

std::optional<fs::path> find_rocprofv3() {
  return find_executable("rocprofv3", {"/opt/rocm/bin"});
}

std::vector<std::string> rocprofv3_trace_argv(const fs::path& rocprofv3, const fs::path& output_dir,
                                              const std::vector<std::string>& command) {
  std::vector<std::string> argv = {rocprofv3.string(), "--kernel-trace", "--output-format", "rocpd",
                                   "-d", output_dir.string(), "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<fs::path> trace_with_rocprofv3(const RunOptions& options, const fs::path& trace_dir) {
  auto rocprofv3 = find_rocprofv3();
  if (!rocprofv3) {
    fail(Errc::missing_tool,
         "rocprofv3 not found in PATH or /opt/rocm/bin: install ROCm 7 (rocprofiler-sdk), or use --no-rocprof to time the "
         "whole program");
  }
  check_program_exists(options);
  detail::TraceTool tool;
  tool.name = "rocprofv3";
  tool.plan = [&](const fs::path& run_dir) {
    detail::TracedRun run;
    run.output_dir = run_dir / "rocprofv3";
    run.argv = rocprofv3_trace_argv(*rocprofv3, run.output_dir, options.command);
    return run;
  };
  tool.refusal = [](const detail::TracedRun&) { return std::optional<std::string>(); };
  return detail::collect_traces(options, trace_dir, tool);
}

}  // namespace rpl::backends
