#include "cupti_edges.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "edge_recorder.hpp"

namespace rpl::capture {
namespace {

struct Pending {
  std::mutex mutex;  // apart from the tracer's: an edge call never waits for a buffer being parsed
  EdgeRecorder recorder;
  CudaTraceData records;
  std::set<std::pair<uint32_t, uint32_t>> streams_seen;  // (context id, stream id)
};

Pending& pending() {
  static Pending* p = new Pending();  // never destroyed: exit handlers still use it
  return *p;
}

// A call's handles as its parameters give them.
struct Decoded {
  EdgeCallKind kind;
  CUevent event = nullptr;
  CUstream stream = nullptr;
  bool per_thread = false;  // a _ptsz form: a null stream is the thread's default stream
};

template <typename Params>
const Params& params_of(const CUpti_CallbackData* d) {
  return *static_cast<const Params*>(d->functionParams);
}

#define RPL_RECORD(P, PTSZ) Decoded{EdgeCallKind::event_record, reinterpret_cast<CUevent>(params_of<P>(d).event), reinterpret_cast<CUstream>(params_of<P>(d).stream), PTSZ}
#define RPL_WAIT(P, PTSZ) Decoded{EdgeCallKind::stream_wait_event, reinterpret_cast<CUevent>(params_of<P>(d).event), reinterpret_cast<CUstream>(params_of<P>(d).stream), PTSZ}
#define RPL_STREAM_SYNC(P, PTSZ) Decoded{EdgeCallKind::stream_synchronize, nullptr, reinterpret_cast<CUstream>(params_of<P>(d).stream), PTSZ}

std::optional<Decoded> decode_runtime(CUpti_CallbackId cbid, const CUpti_CallbackData* d) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020: return RPL_RECORD(cudaEventRecord_v3020_params, false);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000: return RPL_RECORD(cudaEventRecord_ptsz_v7000_params, true);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010: return RPL_RECORD(cudaEventRecordWithFlags_v11010_params, false);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
      return RPL_RECORD(cudaEventRecordWithFlags_ptsz_v11010_params, true);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020: return RPL_WAIT(cudaStreamWaitEvent_v3020_params, false);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: return RPL_WAIT(cudaStreamWaitEvent_ptsz_v7000_params, true);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020: return RPL_STREAM_SYNC(cudaStreamSynchronize_v3020_params, false);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      return RPL_STREAM_SYNC(cudaStreamSynchronize_ptsz_v7000_params, true);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
      return Decoded{EdgeCallKind::event_synchronize, reinterpret_cast<CUevent>(params_of<cudaEventSynchronize_v3020_params>(d).event)};
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
      return Decoded{EdgeCallKind::event_destroy, reinterpret_cast<CUevent>(params_of<cudaEventDestroy_v3020_params>(d).event)};
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
      return Decoded{EdgeCallKind::context_synchronize};
    default:
      return std::nullopt;
  }
}

#undef RPL_RECORD
#undef RPL_WAIT
#undef RPL_STREAM_SYNC
#define RPL_RECORD(P, PTSZ) Decoded{EdgeCallKind::event_record, params_of<P>(d).hEvent, params_of<P>(d).hStream, PTSZ}
#define RPL_WAIT(P, PTSZ) Decoded{EdgeCallKind::stream_wait_event, params_of<P>(d).hEvent, params_of<P>(d).hStream, PTSZ}
#define RPL_STREAM_SYNC(P, PTSZ) Decoded{EdgeCallKind::stream_synchronize, nullptr, params_of<P>(d).hStream, PTSZ}

std::optional<Decoded> decode_driver(CUpti_CallbackId cbid, const CUpti_CallbackData* d) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord: return RPL_RECORD(cuEventRecord_params, false);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: return RPL_RECORD(cuEventRecord_ptsz_params, true);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags: return RPL_RECORD(cuEventRecordWithFlags_params, false);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: return RPL_RECORD(cuEventRecordWithFlags_ptsz_params, true);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent: return RPL_WAIT(cuStreamWaitEvent_params, false);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: return RPL_WAIT(cuStreamWaitEvent_ptsz_params, true);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize: return RPL_STREAM_SYNC(cuStreamSynchronize_params, false);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz: return RPL_STREAM_SYNC(cuStreamSynchronize_ptsz_params, true);
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
      return Decoded{EdgeCallKind::event_synchronize, params_of<cuEventSynchronize_params>(d).hEvent};
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy:
      return Decoded{EdgeCallKind::event_destroy, params_of<cuEventDestroy_params>(d).hEvent};
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2:
      return Decoded{EdgeCallKind::event_destroy, params_of<cuEventDestroy_v2_params>(d).hEvent};
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
      return Decoded{EdgeCallKind::context_synchronize};
    default:
      return std::nullopt;
  }
}

#undef RPL_RECORD
#undef RPL_WAIT
#undef RPL_STREAM_SYNC

constexpr CUpti_CallbackId kRuntimeCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,         CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,     CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,    CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020,
};
constexpr CUpti_CallbackId kDriverCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuEventRecord,         CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,     CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,   CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,    CUPTI_DRIVER_TRACE_CBID_cuEventDestroy,
    CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2,     CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
};

// A runtime call reaches the driver's own form of it: followed once, as the runtime call.
thread_local int t_runtime_depth = 0;
thread_local uint64_t t_entered = 0;

uint32_t stream_id(CUcontext context, CUstream stream, bool per_thread) {
  uint32_t id = kNoStream;
  if (cuptiGetStreamIdEx(context, stream, per_thread && stream == nullptr ? 1 : 0, &id) != CUPTI_SUCCESS) return kNoStream;
  return id;
}

// Work put on a stream being captured into a graph does not run: its edges are the graph's.
bool capturing(CUstream stream, bool per_thread) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (per_thread && stream == nullptr) stream = CU_STREAM_PER_THREAD;
  return cuStreamIsCapturing(stream, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

void add_stream(CUcontext context, uint32_t stream, uint8_t flag) {
  uint32_t context_id = 0;
  if (stream == kNoStream || cuptiGetContextId(context, &context_id) != CUPTI_SUCCESS) return;
  Pending& p = pending();
  std::lock_guard lock(p.mutex);
  if (p.streams_seen.insert({context_id, stream}).second) p.records.streams.push_back({context_id, stream, flag});
}

// CUpti_ActivityStreamFlag, as CUPTI's STREAM records gave it.
constexpr uint8_t kBlocking = 1, kNonBlocking = 2, kLegacyDefault = 3;

void on_stream_created(const CUpti_ResourceData* r) {
  CUstream stream = r->resourceHandle.stream;
  if (stream == nullptr) return add_stream(r->context, stream_id(r->context, nullptr, false), kLegacyDefault);
  unsigned int flags = 0;
  if (cuStreamGetFlags(stream, &flags) != CUDA_SUCCESS) return;
  add_stream(r->context, stream_id(r->context, stream, false), (flags & CU_STREAM_NON_BLOCKING) ? kNonBlocking : kBlocking);
}

}  // namespace

void enable_edge_callbacks(CUpti_SubscriberHandle subscriber) {
  for (auto cbid : kRuntimeCalls) cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
  for (auto cbid : kDriverCalls) cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED);
}

void record_context_streams(CUcontext context) { add_stream(context, stream_id(context, nullptr, false), kLegacyDefault); }

bool on_edge_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid != CUPTI_CBID_RESOURCE_STREAM_CREATED) return false;
    on_stream_created(static_cast<const CUpti_ResourceData*>(cbdata));
    return true;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  const auto* d = static_cast<const CUpti_CallbackData*>(cbdata);
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  const auto call = runtime ? decode_runtime(cbid, d) : decode_driver(cbid, d);
  if (!call) return false;
  if (!runtime && t_runtime_depth > 0) return true;  // the runtime call it serves is followed
  if (d->callbackSite == CUPTI_API_ENTER) {
    if (runtime) ++t_runtime_depth;
    cuptiGetTimestamp(&t_entered);
    return true;
  }
  if (runtime) --t_runtime_depth;
  const bool failed = d->functionReturnValue &&
                      (runtime ? *static_cast<const cudaError_t*>(d->functionReturnValue) != cudaSuccess
                               : *static_cast<const CUresult*>(d->functionReturnValue) != CUDA_SUCCESS);
  if (failed) return true;  // nothing was recorded, waited for or synchronized
  const bool on_stream = call->kind == EdgeCallKind::event_record || call->kind == EdgeCallKind::stream_wait_event;
  if (on_stream && capturing(call->stream, call->per_thread)) return true;
  EdgeCall e;
  e.kind = call->kind;
  e.event = reinterpret_cast<uint64_t>(call->event);
  if (on_stream || call->kind == EdgeCallKind::stream_synchronize) e.stream = stream_id(d->context, call->stream, call->per_thread);
  e.correlation = d->correlationId;
  e.start = t_entered;
  cuptiGetTimestamp(&e.end);
  Pending& p = pending();
  std::lock_guard lock(p.mutex);
  p.recorder.add(e, p.records);
  return true;
}

bool is_synchronization_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  switch (domain) {
    case CUPTI_CB_DOMAIN_RUNTIME_API:
      return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020 || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000 ||
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020 ||
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000 ||
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020 ||
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020 ||
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020;
    case CUPTI_CB_DOMAIN_DRIVER_API:
      return cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz ||
             cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz ||
             cbid == CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize || cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize ||
             cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2;
    default:
      return false;
  }
}

void take_edge_records(CudaTraceData& batch) {
  Pending& p = pending();
  std::lock_guard lock(p.mutex);
  auto move_into = [](auto& to, auto& from) {
    to.insert(to.end(), from.begin(), from.end());
    from.clear();
  };
  move_into(batch.syncs, p.records.syncs);
  move_into(batch.events, p.records.events);
  move_into(batch.streams, p.records.streams);
}

}  // namespace rpl::capture
