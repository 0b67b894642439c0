#pragma once
// A trace written as an Nsight Systems export (`nsys export --type sqlite`), for the reader's tests:
// the kernel tables are laid out as real exports of 2022.4 and 2025.5 have them
// (../shared/reference/formats.md); the other tables with the columns their schema documents, which
// the reader finds by name.
#include <cstdint>
#include <filesystem>

#include <rpl/trace/model.hpp>

namespace rpl::tools {

enum class NsysRelease {
  v2022_4,  // export schema 3.0.0 (EXPORT_META_DATA): kernels in 27 columns, waits name the event only
  v2025_5,  // export schema 3.24 (META_DATA_EXPORT): 38 columns, greenContextId, eventSyncId
};

/// Writes the trace as one process, pid, of an export: StringIds, TARGET_INFO_GPU and
/// TARGET_INFO_CUDA_DEVICE, CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _CUDA_EVENT,
/// _SYNCHRONIZATION, TARGET_INFO_CUDA_STREAM. GPU agents are numbered device + 1, as rocm-perf's
/// tracer numbers them.
void write_nsys_export(const trace::Trace& trace, const std::filesystem::path& file, int64_t pid, NsysRelease release);

}  // namespace rpl::tools
