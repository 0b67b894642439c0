#pragma once
// The NVIDIA backend: runs the program with rocm-perf's CUPTI tracer injected
// (CUDA_INJECTION64_PATH) and keeps the rocpd databases it writes.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <rpl/backends/run_options.hpp>

namespace rpl::backends {

/// Why no NVIDIA GPU can be traced here (no driver, no device, driver older than CUDA 13), or
/// nothing when one can. Loads the driver with dlopen: rocm-perf itself never links CUDA.
std::optional<std::string> nvidia_gpu_unavailable();

/// The product name of NVIDIA device `ordinal` (as numbered without CUDA_VISIBLE_DEVICES), or
/// none when there is no such device or no driver.
std::optional<std::string> nvidia_device_name(int ordinal);

/// The tracer library: $RPL_CUPTI_TRACE_LIB, else librpl_cupti_trace.so where find_installed_file looks.
std::optional<std::filesystem::path> find_cupti_tracer();

/// Like trace_with_rocprofv3, with the CUPTI tracer. Errors: missing_tool (no GPU, old driver, no
/// tracer library, another CUPTI client attached), run_failed (a run failed, hung or recorded nothing).
std::vector<std::filesystem::path> trace_with_cupti(const RunOptions& options, const std::filesystem::path& trace_dir);

}  // namespace rpl::backends
