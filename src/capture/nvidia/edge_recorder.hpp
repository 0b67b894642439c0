#pragma once
// The host calls that give the dependency DAG its explicit edges (event records, stream waits,
// synchronizations), turned into the tracer's records. The tracer follows these few calls with
// CUPTI callbacks (cupti_edges.cpp) instead of CUPTI's SYNCHRONIZATION and CUDA_EVENT activity
// kinds, which slow every launch of a launch-bound program (docs/dependencies.md). Kept apart from
// CUPTI so that the mapping is tested without a GPU.
#include <cstdint>
#include <unordered_map>

#include "cuda_trace_data.hpp"

namespace rpl::capture {

/// CUPTI's value for "not applicable" in a synchronization record (CUPTI_SYNCHRONIZATION_INVALID_VALUE).
inline constexpr uint32_t kNoStream = 0xffffffffu;
inline constexpr uint64_t kNoRecording = 0xffffffffu;

enum class EdgeCallKind : uint8_t {
  event_record,         // cudaEventRecord(WithFlags), cuEventRecord(WithFlags), per-thread variants
  stream_wait_event,    // cudaStreamWaitEvent, cuStreamWaitEvent
  event_synchronize,    // cudaEventSynchronize, cuEventSynchronize
  stream_synchronize,   // cudaStreamSynchronize, cuStreamSynchronize
  context_synchronize,  // cudaDeviceSynchronize, cudaThreadSynchronize, cuCtxSynchronize
  event_destroy,        // cudaEventDestroy, cuEventDestroy: the handle may come back as a new event
};

/// One completed call, as the callback saw it.
struct EdgeCall {
  EdgeCallKind kind = EdgeCallKind::event_record;
  uint64_t event = 0;            // the event handle, as a number (records, waits, event syncs)
  uint32_t stream = kNoStream;   // CUPTI's stream id (records, waits, stream syncs)
  uint32_t correlation = 0;      // the call's correlation id: its place among the process's calls
  uint64_t start = 0, end = 0;   // the call, on CUPTI's clock
};

/// Numbers each recording of an event (an event may be recorded many times; a wait is for the
/// latest recording before it, in call order) and appends the records a call makes to out, as
/// CUPTI's CUDA_EVENT and SYNCHRONIZATION records would have been. Not thread-safe: the tracer
/// calls it under a lock, in the order the calls completed.
class EdgeRecorder {
 public:
  void add(const EdgeCall& call, CudaTraceData& out);

 private:
  struct Recording {
    uint64_t id = kNoRecording;
    uint32_t stream = kNoStream;
  };
  std::unordered_map<uint64_t, Recording> latest_;  // by event handle
  uint64_t next_id_ = 1;
};

}  // namespace rpl::capture
