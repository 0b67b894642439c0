// librpl_cupti_trace.so: loaded by the CUDA driver through CUDA_INJECTION64_PATH, it records
// kernels, memory copies, memsets and synchronizations with the CUPTI Activity API and writes one
// rocpd v3 database per process at exit. Configuration (README.md beside this file):
//   RPL_TRACE_DIR     folder for <hostname>/<pid>_results.db (required)
//   RPL_TRACE_BUFFER_MB  activity buffer size, default 8
// It refuses with exit status 3 and a status file <dir>/<pid>.refused when another CUPTI client is
// attached or CUPTI cannot start. No C++ exception crosses into the driver.
#include <cupti.h>
#include <cuda.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cuda_trace_data.hpp"

namespace {

using rpl::capture::CudaTraceData;

struct Tracer {
  std::mutex mutex;
  CudaTraceData data;
  std::unordered_map<std::string, uint32_t> name_index;
  std::string dir;
  size_t buffer_bytes = 8u << 20;
  CUpti_SubscriberHandle subscriber{};
  std::atomic<bool> written{false};
};

Tracer& tracer() {
  static Tracer* t = new Tracer();  // never destroyed: exit handlers still use it
  return *t;
}

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw;
}

[[noreturn]] void refuse(const std::string& why) {
  const std::string dir = tracer().dir.empty() ? "." : tracer().dir;
  std::ofstream(dir + "/" + std::to_string(getpid()) + ".refused") << why << "\n";
  std::fprintf(stderr, "rpl-cupti-trace: %s\n", why.c_str());
  std::fflush(stderr);
  _exit(3);
}

const char* cupti_error(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

void record_device(CUcontext context) {
  CUdevice dev;
  if (cuCtxPushCurrent(context) != CUDA_SUCCESS) return;
  const bool ok = cuCtxGetDevice(&dev) == CUDA_SUCCESS;
  CUcontext popped;
  cuCtxPopCurrent(&popped);
  if (!ok) return;
  uint32_t id = 0;
  if (cuptiGetDeviceId(context, &id) != CUPTI_SUCCESS) return;
  rpl::capture::CudaDeviceInfo info;
  info.id = id;
  char name[256] = {};
  cuDeviceGetName(name, sizeof name - 1, dev);
  info.name = name;
  auto attr = [dev](CUdevice_attribute a) {
    int v = 0;
    cuDeviceGetAttribute(&v, a, dev);
    return v;
  };
  info.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  info.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info.registers_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info.shared_memory_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info.shared_memory_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info.l2_cache_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.memory_bus_width_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  std::lock_guard lock(tracer().mutex);
  for (const auto& d : tracer().data.devices) {
    if (d.id == id) return;
  }
  tracer().data.devices.push_back(std::move(info));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = tracer().buffer_bytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void add_record(Tracer& t, const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      rpl::capture::CudaKernelRecord r;
      r.start = k->start;
      r.end = k->end;
      r.device = k->deviceId;
      r.context = k->contextId;
      r.stream = k->streamId;
      r.correlation = k->correlationId;
      r.grid[0] = k->gridX, r.grid[1] = k->gridY, r.grid[2] = k->gridZ;
      r.block[0] = k->blockX, r.block[1] = k->blockY, r.block[2] = k->blockZ;
      r.static_shared = k->staticSharedMemory;
      r.dynamic_shared = k->dynamicSharedMemory;
      r.local_memory_per_thread = k->localMemoryPerThread;
      r.registers_per_thread = k->registersPerThread;
      r.launch_type = k->launchType;
      r.shmem_limit_config = static_cast<uint8_t>(k->shmemLimitConfig);
      r.shared_memory_executed = k->sharedMemoryExecuted;
      r.graph_id = k->graphId;
      r.graph_node_id = k->graphNodeId;
      const std::string name = k->name ? k->name : "<unnamed>";
      auto [it, inserted] = t.name_index.try_emplace(name, static_cast<uint32_t>(t.data.names.size()));
      if (inserted) t.data.names.push_back(name);
      r.name = it->second;
      t.data.kernels.push_back(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      t.data.memcpys.push_back({m->start, m->end, m->bytes, m->deviceId, m->streamId, m->correlationId, m->copyKind,
                                m->graphId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      t.data.memsets.push_back({m->start, m->end, m->bytes, m->deviceId, m->streamId, m->correlationId, m->value,
                                m->graphId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      t.data.syncs.push_back({s->start, s->end, static_cast<uint32_t>(s->type), s->streamId, s->correlationId});
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  Tracer& t = tracer();
  {
    std::lock_guard lock(t.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) add_record(t, record);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) t.data.dropped_records += dropped;
  }
  std::free(buffer);
}

void write_trace() {
  Tracer& t = tracer();
  if (t.written.exchange(true)) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(t.mutex);
  cuptiGetTimestamp(&t.data.end_ns);
  try {
    const std::filesystem::path dir = std::filesystem::path(t.dir) / t.data.hostname;
    std::filesystem::create_directories(dir);
    rpl::capture::write_cuda_trace(dir / (std::to_string(t.data.pid) + "_results.db"), t.data);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpl-cupti-trace: cannot write the trace: %s\n", e.what());
  }
}

// Records reach us only when flushed: before a device reset or context teardown drops them.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
    if (static_cast<const CUpti_CallbackData*>(cbdata)->callbackSite == CUPTI_API_ENTER) cuptiActivityFlushAll(0);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* r = static_cast<const CUpti_ResourceData*>(cbdata);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) record_device(r->context);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
}

// A crashing program keeps the trace recorded up to the crash: write it, then die as before.
void on_fatal_signal(int sig) {
  write_trace();
  signal(sig, SIG_DFL);
  raise(sig);
}

void at_exit() { write_trace(); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    Tracer& t = tracer();
    const char* dir = std::getenv("RPL_TRACE_DIR");
    t.dir = dir && *dir ? dir : ".";
    if (const char* mb = std::getenv("RPL_TRACE_BUFFER_MB")) {
      const long v = std::strtol(mb, nullptr, 10);
      if (v > 0 && v <= 1024) t.buffer_bytes = static_cast<size_t>(v) << 20;
    }
    t.data.pid = getpid();
    t.data.ppid = getppid();
    t.data.hostname = hostname();
    t.data.command = command_line();
    cuptiGetTimestamp(&t.data.start_ns);

    CUptiResult r = cuptiSubscribe(&t.subscriber, on_callback, nullptr);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      refuse("another CUPTI client (a profiler, debugger or sanitizer) is attached to this process");
    }
    if (r != CUPTI_SUCCESS) refuse(std::string("CUPTI cannot start: ") + cupti_error(r));
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) refuse(std::string("CUPTI activity buffers: ") + cupti_error(r));
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}) {
      r = cuptiActivityEnable(kind);
      if (r != CUPTI_SUCCESS) refuse(std::string("CUPTI activity kind ") + std::to_string(kind) + ": " + cupti_error(r));
    }
    std::atexit(at_exit);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, on_fatal_signal);
  });
  return 1;
}
