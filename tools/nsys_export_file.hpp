#pragma once
// A trace written as an Nsight Systems export (`nsys export --type sqlite`), for the reader's tests:
// tables laid out as real exports have them (../shared/reference/formats.md for the kernel tables of
// 2022.4 and 2025.5; the others as exports of nsys 2022.2 to 2025.5 found in public repositories
// show them, docs/trace-formats.md), the runtime calls named with nsys's version suffix.
#include <cstdint>
#include <filesystem>

#include <rpl/trace/model.hpp>

namespace rpl::tools {

enum class NsysRelease {
  v2022_4,  // export schema 3.0.0 (EXPORT_META_DATA): kernels in 27 columns, waits name the event only, nsys's own syncType
  v2025_5,  // export schema 3.24 (META_DATA_EXPORT): 38 columns, greenContextId, eventSyncId, CUPTI's syncType
};

/// Writes the trace as one process, pid, of an export: StringIds, TARGET_INFO_GPU and
/// TARGET_INFO_CUDA_DEVICE, CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _CUDA_EVENT,
/// _SYNCHRONIZATION, _RUNTIME (the calls of the kernels and event operations), TARGET_INFO_CUDA_STREAM. GPU agents are numbered device + 1, as rocm-perf's
/// tracer numbers them.
void write_nsys_export(const trace::Trace& trace, const std::filesystem::path& file, int64_t pid, NsysRelease release);

}  // namespace rpl::tools
