#pragma once
// The tracer's explicit dependency edges through CUPTI callbacks on the few calls that make them
// (event records, stream waits, synchronizations) and on stream creation, instead of CUPTI's
// SYNCHRONIZATION, CUDA_EVENT and STREAM activity kinds: every other call pays nothing.
#include <cupti.h>

#include "cuda_trace_data.hpp"

namespace rpl::capture {

/// Enables (or, with on false, disables) the callbacks of the calls that make edges (runtime and
/// driver forms, per-thread variants) and of stream creation on subscriber.
void enable_edge_callbacks(CUpti_SubscriberHandle subscriber, bool on = true);

/// The subscriber's callback hands every call here; true when it was one of the edge calls.
bool on_edge_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata);

/// A new context: its legacy default stream, which the context creates without a callback.
void record_context_streams(CUcontext context);

/// Whether a call is one of the synchronizations kept as records already (trace level full keeps
/// every other host call as it is).
bool is_synchronization_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/// Moves the records made since the last call into batch (thread-safe).
void take_edge_records(CudaTraceData& batch);

}  // namespace rpl::capture
