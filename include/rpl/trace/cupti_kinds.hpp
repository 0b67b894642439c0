#pragma once
// CUPTI's activity enumerations as the trace model names them: shared by rocm-perf's own CUPTI
// tracer and the reader of Nsight Systems exports, whose tables are CUPTI's activity records.
#include <cstdint>
#include <optional>
#include <string>

#include <rpl/trace/model.hpp>

namespace rpl::trace {

/// rocprofv3's name of a copy of CUpti_ActivityMemcpyKind (MEMORY_COPY_HOST_TO_DEVICE, ...); CUDA's
/// array and peer kinds keep their own.
std::string cupti_memcpy_name(uint32_t kind);
/// Whether a copy of that kind reads from, or writes to, host memory.
bool cupti_memcpy_from_host(uint32_t kind);
bool cupti_memcpy_to_host(uint32_t kind);

/// The runtime call a CUpti_ActivitySynchronizationType stands for (cudaStreamWaitEvent, ...).
std::string cupti_sync_call(uint32_t type);
/// The dependency it stands for; none for an unknown type.
std::optional<EventOperationKind> cupti_sync_operation(uint32_t type);

/// How a stream of CUpti_ActivityStreamFlag orders itself against the legacy default stream.
StreamSync cupti_stream_sync(uint32_t flag);

}  // namespace rpl::trace
