#pragma once
// The capture half of librpl_cupti_trace.so (rocm-perf isolate): when RPL_CAPTURE_DIR is set, it
// follows allocations and module loads, and writes the snapshot of one launch (docs/snapshot.md)
// with the memory before it, and the memory after it under after/. Configuration:
//   RPL_CAPTURE_DIR       the snapshot folder (exists, empty)
//   RPL_CAPTURE_KERNEL    regular expression on the mangled or demangled kernel name
//   RPL_CAPTURE_DISPATCH  which launch of that kernel, from 0 (default 0)
// It ends by writing capture_status.json there: what was captured, or why nothing was.
#include <cupti.h>

namespace rpl::capture {

/// Whether the environment asks for a capture; false when RPL_CAPTURE_DIR is unset.
bool capture_requested();
/// Reads the configuration and enables the callbacks the capture needs on the tracer's subscriber.
/// Returns an error message, empty on success.
const char* start_capture(CUpti_SubscriberHandle subscriber);
/// Called by the tracer's callback for every domain.
void on_capture_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata);
/// At exit: writes capture_status.json when nothing was captured.
void finish_capture();

}  // namespace rpl::capture
