#include "cupti_edges.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
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

// The calls followed, each once: its callback id, what it does, and whether it is the per-thread
// default stream form (_ptsz: there a null stream is the thread's own default stream).
struct EdgeCallId {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  EdgeCallKind kind;
  bool per_thread;
};

constexpr auto kRuntime = CUPTI_CB_DOMAIN_RUNTIME_API;
constexpr auto kDriver = CUPTI_CB_DOMAIN_DRIVER_API;
constexpr EdgeCallId kEdgeCalls[] = {
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, EdgeCallKind::event_record, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000, EdgeCallKind::event_record, true},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010, EdgeCallKind::event_record, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010, EdgeCallKind::event_record, true},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, EdgeCallKind::stream_wait_event, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000, EdgeCallKind::stream_wait_event, true},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, EdgeCallKind::stream_synchronize, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, EdgeCallKind::stream_synchronize, true},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, EdgeCallKind::event_synchronize, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020, EdgeCallKind::event_destroy, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, EdgeCallKind::context_synchronize, false},
    {kRuntime, CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020, EdgeCallKind::context_synchronize, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventRecord, EdgeCallKind::event_record, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, EdgeCallKind::event_record, true},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, EdgeCallKind::event_record, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz, EdgeCallKind::event_record, true},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, EdgeCallKind::stream_wait_event, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, EdgeCallKind::stream_wait_event, true},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, EdgeCallKind::stream_synchronize, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, EdgeCallKind::stream_synchronize, true},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, EdgeCallKind::event_synchronize, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventDestroy, EdgeCallKind::event_destroy, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, EdgeCallKind::event_destroy, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, EdgeCallKind::context_synchronize, false},
    {kDriver, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, EdgeCallKind::context_synchronize, false},
};

const EdgeCallId* edge_call_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  for (const auto& c : kEdgeCalls) {
    if (c.domain == domain && c.cbid == cbid) return &c;
  }
  return nullptr;
}

// A call's event and stream handles. The variants of a kind lay out their parameters alike
// (WithFlags adds a flags field after them; cuEventDestroy and its _v2 both hold the event alone),
// so one parameter struct per kind and API reads them all.
struct Handles {
  CUevent event = nullptr;
  CUstream stream = nullptr;
};

// That layout, checked: each variant read through its kind's struct has its handles at the same offsets.
#define RPL_SAME_FIELD(A, B, FA, FB) static_assert(offsetof(A, FA) == offsetof(B, FB) && sizeof(A::FA) == sizeof(B::FB))
RPL_SAME_FIELD(cudaEventRecord_ptsz_v7000_params, cudaEventRecord_v3020_params, event, event);
RPL_SAME_FIELD(cudaEventRecord_ptsz_v7000_params, cudaEventRecord_v3020_params, stream, stream);
RPL_SAME_FIELD(cudaEventRecordWithFlags_v11010_params, cudaEventRecord_v3020_params, event, event);
RPL_SAME_FIELD(cudaEventRecordWithFlags_v11010_params, cudaEventRecord_v3020_params, stream, stream);
RPL_SAME_FIELD(cudaEventRecordWithFlags_ptsz_v11010_params, cudaEventRecord_v3020_params, event, event);
RPL_SAME_FIELD(cudaEventRecordWithFlags_ptsz_v11010_params, cudaEventRecord_v3020_params, stream, stream);
RPL_SAME_FIELD(cudaStreamWaitEvent_ptsz_v7000_params, cudaStreamWaitEvent_v3020_params, event, event);
RPL_SAME_FIELD(cudaStreamWaitEvent_ptsz_v7000_params, cudaStreamWaitEvent_v3020_params, stream, stream);
RPL_SAME_FIELD(cudaStreamSynchronize_ptsz_v7000_params, cudaStreamSynchronize_v3020_params, stream, stream);
RPL_SAME_FIELD(cudaEventDestroy_v3020_params, cudaEventSynchronize_v3020_params, event, event);
RPL_SAME_FIELD(cuEventRecord_ptsz_params, cuEventRecord_params, hEvent, hEvent);
RPL_SAME_FIELD(cuEventRecord_ptsz_params, cuEventRecord_params, hStream, hStream);
RPL_SAME_FIELD(cuEventRecordWithFlags_params, cuEventRecord_params, hEvent, hEvent);
RPL_SAME_FIELD(cuEventRecordWithFlags_params, cuEventRecord_params, hStream, hStream);
RPL_SAME_FIELD(cuEventRecordWithFlags_ptsz_params, cuEventRecord_params, hEvent, hEvent);
RPL_SAME_FIELD(cuEventRecordWithFlags_ptsz_params, cuEventRecord_params, hStream, hStream);
RPL_SAME_FIELD(cuStreamWaitEvent_ptsz_params, cuStreamWaitEvent_params, hEvent, hEvent);
RPL_SAME_FIELD(cuStreamWaitEvent_ptsz_params, cuStreamWaitEvent_params, hStream, hStream);
RPL_SAME_FIELD(cuStreamSynchronize_ptsz_params, cuStreamSynchronize_params, hStream, hStream);
RPL_SAME_FIELD(cuEventDestroy_params, cuEventSynchronize_params, hEvent, hEvent);
RPL_SAME_FIELD(cuEventDestroy_v2_params, cuEventSynchronize_params, hEvent, hEvent);
#undef RPL_SAME_FIELD

template <typename Params>
const Params& params_as(const void* params) {
  return *static_cast<const Params*>(params);
}

Handles handles_of(const EdgeCallId& call, const void* p) {
  const bool rt = call.domain == kRuntime;
  switch (call.kind) {
    case EdgeCallKind::event_record:
      if (rt) return {params_as<cudaEventRecord_v3020_params>(p).event, params_as<cudaEventRecord_v3020_params>(p).stream};
      return {params_as<cuEventRecord_params>(p).hEvent, params_as<cuEventRecord_params>(p).hStream};
    case EdgeCallKind::stream_wait_event:
      if (rt) return {params_as<cudaStreamWaitEvent_v3020_params>(p).event, params_as<cudaStreamWaitEvent_v3020_params>(p).stream};
      return {params_as<cuStreamWaitEvent_params>(p).hEvent, params_as<cuStreamWaitEvent_params>(p).hStream};
    case EdgeCallKind::stream_synchronize:
      if (rt) return {nullptr, params_as<cudaStreamSynchronize_v3020_params>(p).stream};
      return {nullptr, params_as<cuStreamSynchronize_params>(p).hStream};
    case EdgeCallKind::event_synchronize:
    case EdgeCallKind::event_destroy:
      if (rt) return {params_as<cudaEventSynchronize_v3020_params>(p).event, nullptr};
      return {params_as<cuEventSynchronize_params>(p).hEvent, nullptr};
    case EdgeCallKind::context_synchronize:
      return {};
  }
  return {};
}

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

void enable_edge_callbacks(CUpti_SubscriberHandle subscriber, bool on) {
  for (const auto& c : kEdgeCalls) cuptiEnableCallback(on, subscriber, c.domain, c.cbid);
  cuptiEnableCallback(on, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED);
}

void record_context_streams(CUcontext context) { add_stream(context, stream_id(context, nullptr, false), kLegacyDefault); }

bool on_edge_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid != CUPTI_CBID_RESOURCE_STREAM_CREATED) return false;
    on_stream_created(static_cast<const CUpti_ResourceData*>(cbdata));
    return true;
  }
  const EdgeCallId* call = edge_call_of(domain, cbid);
  if (!call) return false;
  const auto* d = static_cast<const CUpti_CallbackData*>(cbdata);
  const bool runtime = domain == kRuntime;
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
  const Handles h = handles_of(*call, d->functionParams);
  const bool on_stream = call->kind == EdgeCallKind::event_record || call->kind == EdgeCallKind::stream_wait_event;
  if (on_stream && capturing(h.stream, call->per_thread)) return true;
  EdgeCall e;
  e.kind = call->kind;
  e.event = reinterpret_cast<uint64_t>(h.event);
  if (on_stream || call->kind == EdgeCallKind::stream_synchronize) e.stream = stream_id(d->context, h.stream, call->per_thread);
  e.correlation = d->correlationId;
  e.start = t_entered;
  cuptiGetTimestamp(&e.end);
  Pending& p = pending();
  std::lock_guard lock(p.mutex);
  p.recorder.add(e, p.records);
  return true;
}

bool is_synchronization_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const EdgeCallId* call = edge_call_of(domain, cbid);
  return call && call->kind != EdgeCallKind::event_record && call->kind != EdgeCallKind::event_destroy;
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
