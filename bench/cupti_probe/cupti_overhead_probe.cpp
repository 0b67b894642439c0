// librpl_cupti_probe.so: a stripped-down CUPTI injection library for finding where tracing
// overhead comes from. RPL_PROBE is a comma-separated list of what to switch on (empty: load only):
//   subscribe  cuptiSubscribe plus the tracer's two resource callbacks (context create/destroy)
//   reset      with subscribe: the tracer's runtime API callback too (cudaDeviceReset)
//   kernel     activity records of concurrent kernels, counted and discarded
//   serial     activity records of kernels the CUPTI way that serializes them (KIND_KERNEL)
//   copies     memory copy and memset records
//   sync       synchronization and CUDA event records (what the tracer asked for before it followed
//              the calls with callbacks)
//   syncs      synchronization records alone
//   events     CUDA event records alone
//   streams    stream records
//   graphcb    with subscribe: the graph-dependency resource callback
//   edgecb     with subscribe: callbacks on the calls that make edges (event record, stream wait,
//              the synchronizations; runtime and driver), doing nothing
//   api        runtime and driver API records (the tracer's level full)
//   zeroed     hand CUPTI buffers that are already zero (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER)
//   pinned     CUPTI's timestamp buffers in pinned host memory instead of device memory
//   devbuf32   32 MB timestamp buffers instead of CUPTI's default 3.2 MB
//   shared     one activity buffer for all threads instead of one per thread
//   switch     rpl_probe_switch("kernel,memcpy,...") may change the activity kinds (kernel, memcpy,
//              memset) and, with subscribe, the callbacks (reset, edgecb-runtime, edgecb-driver)
//              while the program runs, so that one process compares them chunk by chunk (a
//              paired comparison, free of the spread between processes); the word detached
//              there detaches CUPTI from the process (cuptiFinalize) until a set without it
// Nothing is written; at exit it prints the record count when RPL_PROBE_VERBOSE is set.
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

namespace {

std::atomic<size_t> records{0};
bool zeroed = false;
constexpr size_t buffer_bytes = 2u << 20;

bool has(const std::string& list, const char* word) {
  const std::string padded = std::string(",").append(list).append(","), wanted = std::string(",").append(word).append(",");
  return padded.find(wanted) != std::string::npos;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = buffer_bytes;
  *buffer = static_cast<uint8_t*>(zeroed ? std::calloc(1, buffer_bytes) : std::aligned_alloc(8, buffer_bytes));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  size_t n = 0;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) ++n;
  records += n;
  std::free(buffer);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

CUpti_SubscriberHandle subscriber = nullptr;
bool subscribing = false;  // RPL_PROBE has subscribe
bool detached = false;

// The subscriber with the tracer's two resource callbacks (context create/destroy).
bool subscribe() {
  if (cuptiSubscribe(&subscriber, on_callback, nullptr) != CUPTI_SUCCESS) return false;
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  return true;
}

// Detached, the process runs as with no CUPTI client at all. The caller has synchronized the
// device, and the records are flushed, as cuptiFinalize asks outside an API-exit callback.
void attach(bool on) {
  if (!on && !detached) {
    if (subscriber) cuptiUnsubscribe(subscriber);
    subscriber = nullptr;
    cuptiFinalize();
    detached = true;
  } else if (on && detached) {
    if (subscribing) subscribe();
    cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    detached = false;
  }
}

// The calls the tracer follows for the DAG's edges, in each API's form.
void enable_edge_callbacks(uint32_t on, bool runtime, bool driver) {
  if (runtime) {
    for (auto cbid : {CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
                      CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
                      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
                      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020}) {
      cuptiEnableCallback(on, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
    }
  }
  if (driver) {
    for (auto cbid : {CUPTI_DRIVER_TRACE_CBID_cuEventRecord, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
                      CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
                      CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize}) {
      cuptiEnableCallback(on, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
    }
  }
}

constexpr CUpti_ActivityKind kSwitchable[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                              CUPTI_ACTIVITY_KIND_MEMSET};
constexpr const char* kSwitchableNames[] = {"kernel", "memcpy", "memset"};

void at_exit() {
  if (!detached) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (std::getenv("RPL_PROBE_VERBOSE")) std::fprintf(stderr, "cupti probe: %zu records\n", records.load());
}

}  // namespace

// With RPL_PROBE=...,switch: the records since the last call (flushed, so that they show which
// kinds were on), then only the kinds named in `kinds` (kernel, memcpy, memset) stay enabled and,
// with subscribe, only the callbacks it names (reset: cudaDeviceReset's, as the tracer enables;
// edgecb-runtime, edgecb-driver: the edge calls of one API); with detached, CUPTI leaves the
// process instead, until a call without it attaches it again.
extern "C" __attribute__((visibility("default"))) long rpl_probe_switch(const char* kinds) {
  if (!detached) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // any CUPTI call would attach it
  const long since = static_cast<long>(records.exchange(0));
  attach(!has(kinds, "detached"));
  if (detached) return since;
  for (size_t i = 0; i < std::size(kSwitchable); ++i) {
    if (has(kinds, kSwitchableNames[i])) {
      cuptiActivityEnable(kSwitchable[i]);
    } else {
      cuptiActivityDisable(kSwitchable[i]);
    }
  }
  if (subscriber) {
    cuptiEnableCallback(has(kinds, "reset"), subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    enable_edge_callbacks(has(kinds, "edgecb-runtime"), true, false);
    enable_edge_callbacks(has(kinds, "edgecb-driver"), false, true);
  }
  return since;
}

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  const char* env = std::getenv("RPL_PROBE");
  const std::string probe = env ? env : "";
  subscribing = has(probe, "subscribe");
  if (subscribing) {
    if (!subscribe()) return 1;
    if (has(probe, "reset")) {
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    }
    if (has(probe, "graphcb")) {
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED);
    }
    if (has(probe, "edgecb")) enable_edge_callbacks(1, true, true);
  }
  const bool serial = has(probe, "serial");
  const bool kernel = has(probe, "kernel") || serial, copies = has(probe, "copies"), sync = has(probe, "sync");
  const bool syncs = has(probe, "syncs"), events = has(probe, "events"), streams = has(probe, "streams"), api = has(probe, "api");
  if (!kernel && !copies && !sync && !syncs && !events && !streams && !api && !has(probe, "switch")) return 1;
  zeroed = has(probe, "zeroed");
  if (zeroed) {
    uint8_t on = 1;
    size_t size = sizeof on;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &on);
  }
  if (has(probe, "pinned")) {
    uint8_t on = 1;
    size_t size = sizeof on;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &size, &on);
  }
  if (has(probe, "devbuf32")) {
    size_t bytes = 32u << 20, size = sizeof bytes;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &bytes);
  }
  if (has(probe, "shared")) {
    uint8_t off = 0;
    size_t size = sizeof off;
    cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &off);
  }
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (kernel) cuptiActivityEnable(serial ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (copies) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
  if (sync || syncs) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (sync || events) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  if (streams) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
  if (api) cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
  std::atexit(at_exit);
  return 1;
}
