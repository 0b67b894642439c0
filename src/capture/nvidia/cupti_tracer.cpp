// librpl_cupti_trace.so: loaded by the CUDA driver through CUDA_INJECTION64_PATH, it records
// kernels, memory copies and memsets with the CUPTI Activity API, the calls that make dependency
// edges with CUPTI callbacks, and writes one rocpd v3 database per process at exit. Configuration
// (README.md beside this file):
//   RPL_TRACE_DIR     folder for <hostname>/<pid>_results.db (required)
//   RPL_TRACE_LEVEL   kernels, default or full (docs/dependencies.md)
//   RPL_TRACE_BUFFER_KB  activity buffer size, default 128
//   RPL_TRACE_VERBOSE    print what was recorded and how long writing it took
// It refuses with exit status 3 and a status file <dir>/<pid>.refused when another CUPTI client is
// attached or CUPTI cannot start. No C++ exception crosses into the driver.
#include <cupti.h>
#include <cuda.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <thread>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cuda_trace_data.hpp"
#include "cupti_capture.hpp"
#include "cupti_edges.hpp"

namespace {

using rpl::capture::CudaTraceData;

struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Records flow from CUPTI's buffers into batches that a writer thread adds to the database while
// the program runs, so little is left to write when it exits.
struct Tracer {
  std::mutex mutex;                // guards everything below but the writer
  std::condition_variable wake;
  CudaTraceData process;           // pid, hostname, command, start time
  std::vector<std::string> new_names;  // kernel names first seen since the last batch
  // Every kernel name seen, to its index in first-seen order. Keys are looked up by the record's
  // C string, so a known name costs no allocation.
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> name_index;
  std::vector<rpl::capture::CudaDeviceInfo> new_devices;
  std::vector<rpl::capture::CudaGraphDependency> new_graph_dependencies;  // since the last batch
  std::deque<CudaTraceData> batches;
  bool stopping = false;
  uint64_t dropped = 0;
  size_t kernels = 0, copies = 0;
  std::thread writer_thread;
  std::unique_ptr<rpl::capture::CudaTraceWriter> writer;  // only the writer thread touches it
  bool added = false;  // whether any batch reached the database (a process may run no GPU work)
  std::string error;
  std::string dir;
  // Small buffers reach the writer thread sooner and leave little to write at exit: on an H100,
  // 100,000 kernels left 40 ms of writing at exit with 2 MiB buffers, 5 ms with 128 KiB.
  size_t buffer_bytes = 128u << 10;
  bool verbose = false;
  bool edges = true;      // level default or full: event records, waits, synchronizations, stream kinds, graph edges
  bool api_calls = false; // level full: every host API call
  CUpti_SubscriberHandle subscriber{};
  std::vector<CUpti_ActivityKind> kinds;  // the activity kinds of the level
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
  tracer().new_devices.push_back(std::move(info));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = tracer().buffer_bytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void add_record(Tracer& t, CudaTraceData& batch, const CUpti_Activity* record) {
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
      const std::string_view name = k->name ? k->name : "<unnamed>";
      auto it = t.name_index.find(name);
      if (it == t.name_index.end()) {
        it = t.name_index.emplace(std::string(name), static_cast<uint32_t>(t.name_index.size())).first;
        t.new_names.emplace_back(name);
      }
      r.name = it->second;
      batch.kernels.push_back(r);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      batch.memcpys.push_back({m->start, m->end, m->bytes, m->deviceId, m->streamId, m->correlationId, m->copyKind,
                                m->graphId, m->graphNodeId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      batch.memsets.push_back({m->start, m->end, m->bytes, m->deviceId, m->streamId, m->correlationId, m->value,
                                m->graphId, m->graphNodeId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const auto domain = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
      if (rpl::capture::is_synchronization_call(domain, a->cbid)) break;  // a synchronization record already
      const char* name = nullptr;
      if (cuptiGetCallbackName(domain, a->cbid, &name) != CUPTI_SUCCESS || !name) name = "<unknown API call>";
      std::string_view n = name;
      // "cudaLaunchKernel_v7000" is cudaLaunchKernel: the suffix is the version that added it.
      if (const auto v = n.rfind("_v"); v != std::string_view::npos && v + 2 < n.size() &&
                                         n.find_first_not_of("0123456789", v + 2) == std::string_view::npos) {
        n = n.substr(0, v);
      }
      batch.api_calls.push_back({a->start, a->end, a->correlationId, a->threadId, std::string(n)});
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
    CudaTraceData batch;
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) add_record(t, batch, record);
    if (t.edges) rpl::capture::take_edge_records(batch);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) t.dropped += dropped;
    t.kernels += batch.kernels.size();
    t.copies += batch.memcpys.size() + batch.memsets.size();
    batch.names = std::move(t.new_names);
    t.new_names.clear();
    batch.devices = std::move(t.new_devices);
    t.new_devices.clear();
    batch.graph_dependencies = std::move(t.new_graph_dependencies);
    t.new_graph_dependencies.clear();
    t.batches.push_back(std::move(batch));
  }
  t.wake.notify_one();
  std::free(buffer);
}

// The writer thread: adds each batch to the database as it comes.
void write_batches() {
  Tracer& t = tracer();
  // The database is created before any record comes, off the program's exit path.
  try {
    const std::filesystem::path dir = std::filesystem::path(t.dir) / t.process.hostname;
    std::filesystem::create_directories(dir);
    t.writer = std::make_unique<rpl::capture::CudaTraceWriter>(dir / (std::to_string(t.process.pid) + "_results.db"),
                                                               t.process);
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  while (true) {
    CudaTraceData batch;
    {
      std::unique_lock lock(t.mutex);
      t.wake.wait(lock, [&] { return t.stopping || !t.batches.empty(); });
      if (t.batches.empty()) return;  // stopping, and nothing left
      batch = std::move(t.batches.front());
      t.batches.pop_front();
    }
    if (!t.error.empty()) continue;
    try {
      t.writer->add(batch);
      t.added = true;
    } catch (const std::exception& e) {
      t.error = e.what();
    }
  }
}

// Flushes CUPTI, lets the writer thread drain every batch, and commits the database.
void write_trace() {
  Tracer& t = tracer();
  if (t.written.exchange(true)) return;
  const auto flush_start = std::chrono::steady_clock::now();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard lock(t.mutex);
    // A device whose context ran nothing yet, a graph built or an edge call made after the last buffer.
    CudaTraceData batch;
    batch.devices = std::move(t.new_devices);
    batch.graph_dependencies = std::move(t.new_graph_dependencies);
    if (t.edges) rpl::capture::take_edge_records(batch);
    if (!batch.devices.empty() || !batch.graph_dependencies.empty() || !batch.syncs.empty() || !batch.events.empty() ||
        !batch.streams.empty()) {
      t.batches.push_back(std::move(batch));
    }
    t.stopping = true;
  }
  t.wake.notify_one();
  const auto drain_start = std::chrono::steady_clock::now();
  if (t.writer_thread.joinable()) t.writer_thread.join();
  try {
    uint64_t end_ns = 0;
    cuptiGetTimestamp(&end_ns);
    if (t.error.empty() && t.added) t.writer->finish(t.dropped, end_ns);
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  t.writer.reset();  // if unfinished, its temporary file goes with it
  if (!t.error.empty()) std::fprintf(stderr, "rpl-cupti-trace: cannot write the trace: %s\n", t.error.c_str());
  if (t.verbose) {
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::fprintf(stderr, "rpl-cupti-trace: %zu kernels, %zu copies and memsets, %llu dropped; at exit: flush %.1f ms, "
                 "writing the rest %.1f ms\n",
                 t.kernels, t.copies, static_cast<unsigned long long>(t.dropped), ms(flush_start, drain_start),
                 ms(drain_start, std::chrono::steady_clock::now()));
  }
}

bool capturing = false;  // rocm-perf isolate: RPL_CAPTURE_DIR is set

// An edge of a graph, as created (by the graph API, by stream capture, or by instantiation, whose
// copy of the graph is the one its launches' kernel records name).
void record_graph_dependency(const CUpti_ResourceData* r) {
  const auto* g = r ? static_cast<const CUpti_GraphData*>(r->resourceDescriptor) : nullptr;
  if (!g || !g->graph || !g->node || !g->dependency) return;
  rpl::capture::CudaGraphDependency d;
  if (cuptiGetGraphId(g->graph, &d.graph) != CUPTI_SUCCESS || cuptiGetGraphNodeId(g->dependency, &d.from) != CUPTI_SUCCESS ||
      cuptiGetGraphNodeId(g->node, &d.to) != CUPTI_SUCCESS) {
    return;
  }
  std::lock_guard lock(tracer().mutex);
  tracer().new_graph_dependencies.push_back(d);
}

// Records reach us only when flushed: before a device reset or context teardown drops them.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  if (capturing) rpl::capture::on_capture_callback(domain, cbid, cbdata);
  if (tracer().edges && rpl::capture::on_edge_callback(domain, cbid, cbdata)) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
    if (static_cast<const CUpti_CallbackData*>(cbdata)->callbackSite == CUPTI_API_ENTER) cuptiActivityFlushAll(0);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* r = static_cast<const CUpti_ResourceData*>(cbdata);
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
      record_device(r->context);
      if (tracer().edges) rpl::capture::record_context_streams(r->context);
    }
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED) record_graph_dependency(r);
  }
}

// A crashing program keeps the trace recorded up to the crash: write it, then die as before.
void on_fatal_signal(int sig) {
  write_trace();
  signal(sig, SIG_DFL);
  raise(sig);
}

void at_exit() {
  if (capturing) rpl::capture::finish_capture();
  write_trace();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    Tracer& t = tracer();
    const char* dir = std::getenv("RPL_TRACE_DIR");
    t.dir = dir && *dir ? dir : ".";
    t.verbose = std::getenv("RPL_TRACE_VERBOSE") != nullptr;
    const char* level = std::getenv("RPL_TRACE_LEVEL");
    t.process.trace_level = level && *level ? level : "default";
    if (t.process.trace_level != "kernels" && t.process.trace_level != "default" && t.process.trace_level != "full") {
      refuse("RPL_TRACE_LEVEL=" + t.process.trace_level + ": give kernels, default or full");
    }
    // A rank of srun's, Open MPI's or another PMI launcher's, for the per-rank view.
    for (const char* name : {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
      const char* rank = std::getenv(name);
      if (rank && *rank && t.process.rank.empty()) t.process.rank = rank;
    }
    t.edges = t.process.trace_level != "kernels";
    t.api_calls = t.process.trace_level == "full";
    if (const char* kb = std::getenv("RPL_TRACE_BUFFER_KB")) {
      const long v = std::strtol(kb, nullptr, 10);
      if (v >= 64 && v <= (1 << 20)) t.buffer_bytes = static_cast<size_t>(v) << 10;
    }
    t.process.pid = getpid();
    t.process.ppid = getppid();
    t.process.hostname = hostname();
    t.process.command = command_line();
    cuptiGetTimestamp(&t.process.start_ns);

    CUptiResult r = cuptiSubscribe(&t.subscriber, on_callback, nullptr);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      refuse("another CUPTI client (a profiler, debugger or sanitizer) is attached to this process");
    }
    if (r != CUPTI_SUCCESS) refuse(std::string("CUPTI cannot start: ") + cupti_error(r));
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    if (t.edges) {
      cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED);
      rpl::capture::enable_edge_callbacks(t.subscriber);
    }
    if (rpl::capture::capture_requested()) {
      const std::string why = rpl::capture::start_capture(t.subscriber);
      if (!why.empty()) refuse("cannot capture: " + why);
      capturing = true;
    }
    if (const char* mb = std::getenv("RPL_TRACE_DEVICE_BUFFER_MB")) {
      size_t bytes = static_cast<size_t>(std::strtol(mb, nullptr, 10)) << 20, size = sizeof bytes;
      if (bytes > 0) cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &size, &bytes);
    }
    r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) refuse(std::string("CUPTI activity buffers: ") + cupti_error(r));
    // Only what a callback cannot give: kernels, copies and memsets as they ran on the GPU (and, at
    // level full, every host call). The edges come from callbacks on the few calls that make them.
    t.kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
    if (t.api_calls) t.kinds.insert(t.kinds.end(), {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER});
    for (CUpti_ActivityKind kind : t.kinds) {
      r = cuptiActivityEnable(kind);
      if (r != CUPTI_SUCCESS) refuse(std::string("CUPTI activity kind ") + std::to_string(kind) + ": " + cupti_error(r));
    }
    t.writer_thread = std::thread(write_batches);
    std::atexit(at_exit);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, on_fatal_signal);
  });
  return 1;
}

// For benchmarks that compare tracing on and off chunk by chunk inside one process
// (bench/tracer_pause_switching.sh), free of the spread between processes: paused, no activity
// kind and no edge callback stays enabled, so the program runs under a CUPTI subscriber that
// records nothing; resumed, the level's kinds and callbacks are back. What runs while paused is
// missing from the trace. Returns 0, or -1 before the tracer started or while it captures.
extern "C" __attribute__((visibility("default"))) int rpl_trace_pause(int paused) {
  Tracer& t = tracer();
  if (!t.subscriber || capturing) return -1;
  for (CUpti_ActivityKind kind : t.kinds) {
    if (paused) {
      cuptiActivityDisable(kind);
    } else {
      cuptiActivityEnable(kind);
    }
  }
  if (t.edges) {
    cuptiEnableCallback(!paused, t.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED);
    rpl::capture::enable_edge_callbacks(t.subscriber, !paused);
  }
  return 0;
}
