#include "edge_recorder.hpp"

namespace rpl::capture {
namespace {

// CUpti_ActivitySynchronizationType
constexpr uint32_t kEventSynchronize = 1, kStreamWaitEvent = 2, kStreamSynchronize = 3, kContextSynchronize = 4;

}  // namespace

void EdgeRecorder::add(const EdgeCall& call, CudaTraceData& out) {
  auto recording_of = [&](uint64_t event) {
    auto it = latest_.find(event);
    return it == latest_.end() ? Recording{} : it->second;
  };
  switch (call.kind) {
    case EdgeCallKind::event_record: {
      const Recording r{next_id_++, call.stream};
      latest_[call.event] = r;
      out.events.push_back({call.stream, call.correlation, r.id});
      break;
    }
    case EdgeCallKind::stream_wait_event:
      out.syncs.push_back({call.start, call.end, kStreamWaitEvent, call.stream, call.correlation, recording_of(call.event).id});
      break;
    case EdgeCallKind::event_synchronize:
      out.syncs.push_back({call.start, call.end, kEventSynchronize, kNoStream, call.correlation, recording_of(call.event).id});
      break;
    case EdgeCallKind::stream_synchronize:
      out.syncs.push_back({call.start, call.end, kStreamSynchronize, call.stream, call.correlation, kNoRecording});
      break;
    case EdgeCallKind::context_synchronize:
      out.syncs.push_back({call.start, call.end, kContextSynchronize, kNoStream, call.correlation, kNoRecording});
      break;
    case EdgeCallKind::event_destroy:
      latest_.erase(call.event);
      break;
  }
}

}  // namespace rpl::capture
