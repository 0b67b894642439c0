#include <rpl/trace/cupti_kinds.hpp>

namespace rpl::trace {

std::string cupti_memcpy_name(uint32_t kind) {
  switch (kind) {
    case 1: return "MEMORY_COPY_HOST_TO_DEVICE";
    case 2: return "MEMORY_COPY_DEVICE_TO_HOST";
    case 8: return "MEMORY_COPY_DEVICE_TO_DEVICE";
    case 9: return "MEMORY_COPY_HOST_TO_HOST";
    case 10: return "MEMORY_COPY_PEER_TO_PEER";
    case 3: return "MEMORY_COPY_HOST_TO_ARRAY";
    case 4: return "MEMORY_COPY_ARRAY_TO_HOST";
    case 5: return "MEMORY_COPY_ARRAY_TO_ARRAY";
    case 6: return "MEMORY_COPY_ARRAY_TO_DEVICE";
    case 7: return "MEMORY_COPY_DEVICE_TO_ARRAY";
    default: return "MEMORY_COPY_UNKNOWN";
  }
}

bool cupti_memcpy_from_host(uint32_t kind) { return kind == 1 || kind == 3 || kind == 9; }
bool cupti_memcpy_to_host(uint32_t kind) { return kind == 2 || kind == 4 || kind == 9; }

std::string cupti_sync_call(uint32_t type) {
  switch (type) {
    case 1: return "cudaEventSynchronize";
    case 2: return "cudaStreamWaitEvent";
    case 3: return "cudaStreamSynchronize";
    case 4: return "cudaDeviceSynchronize";
    default: return "synchronization";
  }
}

std::optional<EventOperationKind> cupti_sync_operation(uint32_t type) {
  switch (type) {
    case 1: return EventOperationKind::event_synchronize;
    case 2: return EventOperationKind::stream_wait_event;
    case 3: return EventOperationKind::stream_synchronize;
    case 4: return EventOperationKind::device_synchronize;
    default: return std::nullopt;
  }
}

StreamSync cupti_stream_sync(uint32_t flag) {
  switch (flag) {
    case 1: return StreamSync::blocking;
    case 2: return StreamSync::non_blocking;
    case 3: return StreamSync::legacy_default;
    default: return StreamSync::unknown;
  }
}

}  // namespace rpl::trace
