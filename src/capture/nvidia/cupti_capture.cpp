// Capture of one kernel launch for rocm-perf isolate (cupti_capture.hpp). Everything happens in
// CUPTI driver-API callbacks on the program's own threads: runtime launches and allocations reach
// the driver's callbacks too (seen on an H100 with CUDA 13: scripts/gpu/probe_callbacks.sh), so
// only the driver's are followed. No exception leaves a callback.
#include "cupti_capture.hpp"

#include <cuda.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/demangle.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/capture_plan.hpp>
#include <rpl/isolate/capture_summary.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace rpl::capture {
namespace {
namespace fs = std::filesystem;
using isolate::MemoryRegion;

struct Module {
  uint32_t id;
  std::string image;
  codeobj::CubinSymbols symbols;
};

// What one captured launch needs from its callback parameters.
struct Launch {
  CUfunction function;
  std::array<uint32_t, 3> grid, block;
  uint32_t dynamic_shared;
  CUstream stream;
  void** params;
  void** extra;
  std::optional<std::array<uint32_t, 3>> cluster;
  bool cooperative;
};

struct Capture {
  std::recursive_mutex mutex;  // a module may load inside our own driver calls
  fs::path dir;
  std::optional<isolate::DispatchSelector> selector;
  isolate::AllocationTable allocations;
  std::vector<Module> modules;  // only those defining a kernel the selector matches
  bool done = false;            // captured, or failed: nothing more to do
  bool writing = false;         // writing the snapshot, which may load the kernel's module
  isolate::CaptureStatus status;
  std::vector<MemoryRegion> captured_regions;
};

Capture& capture() {
  static Capture* c = new Capture();  // never destroyed: exit handlers still use it
  return *c;
}

thread_local bool in_capture_call = false;   // our own driver calls re-enter the callbacks
thread_local bool after_pending = false;     // this thread's launch was captured: dump after it

std::string cu_error(CUresult r) {
  const char* s = nullptr;
  cuGetErrorName(r, &s);
  return s ? s : ("CUresult " + std::to_string(static_cast<int>(r)));
}

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cu_error(r));
}

void write_status() {
  Capture& c = capture();
  write_output_file(c.dir / "capture_status.json", isolate::format_capture_status(c.status));
}

// A CUkernel passed as a CUfunction (cuLibraryGetKernel) becomes this context's CUfunction.
CUfunction context_function(CUfunction f) {
  int regs = 0;
  if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS) return f;
  CUfunction resolved = nullptr;
  check(cuKernelGetFunction(&resolved, reinterpret_cast<CUkernel>(f)), "cuKernelGetFunction");
  return resolved;
}

std::vector<isolate::KernelArgument> parameter_layout(CUfunction f) {
  std::vector<isolate::KernelArgument> layout;
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    if (cuFuncGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS) break;  // past the last parameter
    layout.push_back({offset, size});
  }
  return layout;
}

// The argument buffer as the kernel receives it, from either way of passing arguments.
std::vector<uint8_t> argument_buffer(const Launch& l, const std::vector<isolate::KernelArgument>& layout) {
  if (l.params) return isolate::pack_arguments(layout, l.params);
  const void* buffer = nullptr;
  size_t size = 0;
  for (void** e = l.extra; e && *e != CU_LAUNCH_PARAM_END; e += 2) {
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = e[1];
    if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<const size_t*>(e[1]);
  }
  if (!buffer) return {};
  const auto* b = static_cast<const uint8_t*>(buffer);
  return {b, b + size};
}

// Copies device bytes into a file in slices, so a large region needs little host memory.
void dump_bytes(CUdeviceptr base, uint64_t size, const fs::path& file) {
  constexpr uint64_t kSlice = 64ull << 20;
  std::vector<char> host(std::min(size, kSlice));
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  for (uint64_t at = 0; at < size; at += kSlice) {
    const uint64_t n = std::min(kSlice, size - at);
    check(cuMemcpyDtoH(host.data(), base + at, n), "cuMemcpyDtoH");
    out.write(host.data(), static_cast<std::streamsize>(n));
  }
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

// The regions' bytes as chunked files (region_store.hpp), read through a staging buffer. A large
// capture (JAX's pool is tens of GiB) stages through pinned memory, which the device fills at full
// speed; a small one through ordinary memory, as pinning 64 MiB costs more than it saves there.
// headroom: see dump_memory.
isolate::StoredBytes dump_regions(const fs::path& dir, std::vector<MemoryRegion>& regions, double headroom) {
  constexpr uint64_t kStaging = 64 * isolate::kChunkBytes, kPinnedFrom = 1ull << 30;
  static char* pinned = nullptr;  // kept for the dump after the launch
  static std::vector<char> pageable;
  uint64_t total = 0;
  for (const auto& r : regions) total += r.size;
  std::span<char> staging;
  if (total >= kPinnedFrom) {
    if (!pinned) check(cuMemAllocHost(reinterpret_cast<void**>(&pinned), kStaging), "cuMemAllocHost of the staging buffer");
    staging = {pinned, kStaging};
  } else {
    pageable.resize(std::min(kStaging, std::max<uint64_t>((total + isolate::kChunkBytes - 1) / isolate::kChunkBytes, 1) * isolate::kChunkBytes));
    staging = pageable;
  }
  const auto read = [](uint64_t address, uint64_t n, char* into) { check(cuMemcpyDtoH(into, address, n), "cuMemcpyDtoH"); };
  return isolate::dump_memory(dir, regions, read, staging, headroom);
}

std::string architecture_of(CUdevice dev) {
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  return "sm_" + std::to_string(major * 10 + minor);
}

// Writes the snapshot of this launch: the stream's and every other stream's earlier work is
// finished first, so memory holds what the kernel will read.
void write_snapshot(Capture& c, const Launch& l, const std::string& mangled, uint64_t index, uint32_t correlation) {
  const auto start = std::chrono::steady_clock::now();
  check(cuCtxSynchronize(), "cuCtxSynchronize before the captured launch");
  const CUfunction f = context_function(l.function);
  auto find_module = [&]() -> const Module* {
    const Module* found = nullptr;
    for (const auto& m : c.modules) {
      if (std::binary_search(m.symbols.kernels.begin(), m.symbols.kernels.end(), mangled)) found = &m;  // the latest load
    }
    return found;
  };
  const Module* module = find_module();
  if (!module) {
    // Loaded lazily, the module of a program's first launch is loaded inside that launch, after
    // this callback: load it now (its MODULE_LOADED callback comes back here, and keeps it).
    cuFuncLoad(f);
    module = find_module();
  }
  if (!module) throw std::runtime_error("the code object of " + mangled + " was not seen loading");

  isolate::DispatchRecord d;
  d.vendor = "nvidia";
  CUdevice dev = 0;
  check(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  char name[256] = {};
  cuDeviceGetName(name, sizeof name - 1, dev);
  d.device_name = name;
  d.architecture = architecture_of(dev);
  d.kernel_name = demangle(mangled);
  d.mangled_name = mangled;
  d.code_object = "kernel.cubin";
  d.dispatch_index = index;
  d.grid = l.grid;
  d.block = l.block;
  d.cluster = l.cluster;
  d.cooperative = l.cooperative;
  int value = 0;
  cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
  d.static_shared_bytes = static_cast<uint32_t>(value);
  d.dynamic_shared_bytes = l.dynamic_shared;
  cuFuncGetAttribute(&value, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
  d.scratch_bytes = static_cast<uint32_t>(value);
  d.arguments = parameter_layout(f);
  const auto kernarg = argument_buffer(l, d.arguments);
  d.kernarg_size = kernarg.size();

  write_output_file(c.dir / "kernarg.bin", std::string_view(reinterpret_cast<const char*>(kernarg.data()), kernarg.size()));
  write_output_file(c.dir / d.code_object, module->image);
  // Module-scope variables, by name: their addresses are chosen again when the cubin is loaded.
  CUmodule handle = nullptr;
  std::vector<std::string> warnings;
  if (cuFuncGetModule(&handle, f) == CUDA_SUCCESS) {
    for (const auto& var : module->symbols.variables) {
      CUdeviceptr address = 0;
      size_t size = 0;
      if (cuModuleGetGlobal(&address, &size, handle, var.c_str()) != CUDA_SUCCESS || size == 0) continue;
      isolate::GlobalVariable g{var, address, size, "globals/" + std::to_string(d.globals.size()) + ".bin"};
      fs::create_directories(c.dir / "globals");
      dump_bytes(address, size, c.dir / g.file);
      d.globals.push_back(std::move(g));
    }
  } else {
    warnings.push_back("the kernel's module is unknown to the driver: its global variables were not captured");
  }
  c.captured_regions = c.allocations.regions();
  const auto stored = dump_regions(c.dir, c.captured_regions, 2.0);  // room for after/ too
  isolate::write_dispatch_record(c.dir, d);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  c.status = {};
  c.status.captured = true;
  c.status.kernel = mangled;
  c.status.dispatch_index = index;
  c.status.correlation_id = correlation;
  c.status.regions = c.captured_regions.size();
  c.status.bytes = c.allocations.total_bytes();
  c.status.stored_bytes = stored.stored;
  c.status.skipped_bytes = stored.skipped;
  c.status.capture_ms = ms;
  c.status.warnings = std::move(warnings);
}

void fail_capture(Capture& c, const std::string& why) {
  c.done = true;
  c.status = {};
  c.status.error = why;
  std::fprintf(stderr, "rpl-cupti-trace: the capture failed: %s\n", why.c_str());
  try {
    write_status();
  } catch (...) {
  }
}

void on_launch(const CUpti_CallbackData* data, const Launch& l) {
  Capture& c = capture();
  std::lock_guard lock(c.mutex);
  if (c.done || !data->symbolName) return;
  // A launch into a stream being captured into a graph does not run now: it is not counted.
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(l.stream, &capturing) == CUDA_SUCCESS && capturing != CU_STREAM_CAPTURE_STATUS_NONE) return;
  const auto index = c.selector->on_launch(data->symbolName);
  if (!index) return;
  c.done = true;
  c.writing = true;
  try {
    write_snapshot(c, l, data->symbolName, *index, data->correlationId);
    after_pending = true;
  } catch (const std::exception& e) {
    fail_capture(c, e.what());
  }
  c.writing = false;
}

// After the captured launch returned: wait for it and keep the memory it left.
void after_launch(const CUpti_CallbackData* data) {
  after_pending = false;
  Capture& c = capture();
  std::lock_guard lock(c.mutex);
  try {
    const CUresult launched = *static_cast<const CUresult*>(data->functionReturnValue);
    if (launched != CUDA_SUCCESS) throw std::runtime_error("the captured launch failed: " + cu_error(launched));
    const auto start = std::chrono::steady_clock::now();
    check(cuCtxSynchronize(), "cuCtxSynchronize after the captured launch");
    dump_regions(c.dir / "after", c.captured_regions, 1.0);
    c.status.after_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    write_status();
  } catch (const std::exception& e) {
    fail_capture(c, e.what());
  }
}

std::optional<Launch> launch_of(CUpti_CallbackId cbid, const void* params) {
  auto from_classic = [](const auto* p, bool cooperative) {
    return Launch{p->f, {p->gridDimX, p->gridDimY, p->gridDimZ}, {p->blockDimX, p->blockDimY, p->blockDimZ},
                  p->sharedMemBytes, p->hStream, p->kernelParams, nullptr, std::nullopt, cooperative};
  };
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto l = from_classic(static_cast<const cuLaunchKernel_params*>(params), false);
      l.extra = static_cast<const cuLaunchKernel_params*>(params)->extra;
      return l;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return from_classic(static_cast<const cuLaunchCooperativeKernel_params*>(params), true);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      const CUlaunchConfig* cfg = p->config;
      Launch l{p->f, {cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ}, {cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ},
               cfg->sharedMemBytes, cfg->hStream, p->kernelParams, p->extra, std::nullopt, false};
      for (unsigned i = 0; i < cfg->numAttrs; ++i) {
        const auto& a = cfg->attrs[i];
        if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) l.cluster = {{a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z}};
        if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) l.cooperative = a.value.cooperative != 0;
      }
      return l;
    }
    default:
      return std::nullopt;
  }
}

// Allocations and frees, at the exit of the call that made them (the address is known only then).
void track_memory(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  if (*static_cast<const CUresult*>(data->functionReturnValue) != CUDA_SUCCESS) return;
  Capture& c = capture();
  std::lock_guard lock(c.mutex);
  if (c.done) return;
  const void* p = data->functionParams;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
      const auto* a = static_cast<const cuMemAlloc_v2_params*>(p);
      c.allocations.add(*a->dptr, a->bytesize, "device");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      const auto* a = static_cast<const cuMemAllocPitch_v2_params*>(p);
      c.allocations.add(*a->dptr, *a->pPitch * a->Height, "device");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
      const auto* a = static_cast<const cuMemAllocManaged_params*>(p);
      c.allocations.add(*a->dptr, a->bytesize, "managed");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
      const auto* a = static_cast<const cuMemAllocAsync_params*>(p);
      c.allocations.add(*a->dptr, a->bytesize, "pool");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
      const auto* a = static_cast<const cuMemAllocFromPoolAsync_params*>(p);
      c.allocations.add(*a->dptr, a->bytesize, "pool");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      const auto* a = static_cast<const cuMemMap_params*>(p);
      c.allocations.add(a->ptr, a->size, "vmm");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
      c.allocations.remove(static_cast<const cuMemFree_v2_params*>(p)->dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
      c.allocations.remove(static_cast<const cuMemFreeAsync_params*>(p)->dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
      c.allocations.remove(static_cast<const cuMemUnmap_params*>(p)->ptr);
      break;
    default:
      break;
  }
}

// Keeps the image of every module that defines a kernel the selector could take (the image is
// valid only during the callback).
void on_module_loaded(const CUpti_ResourceData* r) {
  const auto* m = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
  if (!m || !m->pCubin || m->cubinSize == 0) return;
  Capture& c = capture();
  std::lock_guard lock(c.mutex);
  if (c.done && !c.writing) return;
  try {
    const std::string_view image(m->pCubin, m->cubinSize);
    auto symbols = codeobj::read_cubin_symbols(image, "module " + std::to_string(m->moduleId));
    for (const auto& k : symbols.kernels) {
      if (c.selector->matches(k)) {
        c.modules.push_back({m->moduleId, std::string(image), std::move(symbols)});
        return;
      }
    }
  } catch (const std::exception&) {
    // Not a cubin we can read (a PTX-only module is compiled by the driver): nothing to keep.
  }
}

constexpr CUpti_CallbackId kLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
constexpr CUpti_CallbackId kMemory[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,         CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,     CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,  CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemMap,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,          CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,   CUPTI_DRIVER_TRACE_CBID_cuMemUnmap};

bool is_launch(CUpti_CallbackId cbid) { return std::find(std::begin(kLaunches), std::end(kLaunches), cbid) != std::end(kLaunches); }

}  // namespace

bool capture_requested() {
  const char* dir = std::getenv("RPL_CAPTURE_DIR");
  return dir && *dir;
}

const char* start_capture(CUpti_SubscriberHandle subscriber) {
  Capture& c = capture();
  c.dir = std::getenv("RPL_CAPTURE_DIR");
  const char* pattern = std::getenv("RPL_CAPTURE_KERNEL");
  const char* index = std::getenv("RPL_CAPTURE_DISPATCH");
  try {
    c.selector.emplace(pattern && *pattern ? pattern : ".", index ? std::strtoull(index, nullptr, 10) : 0);
  } catch (const std::exception&) {
    return "RPL_CAPTURE_KERNEL is not a valid regular expression";
  }
  for (auto cbid : kLaunches) cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  for (auto cbid : kMemory) cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
  if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED) != CUPTI_SUCCESS) {
    return "CUPTI cannot report module loads";
  }
  return "";
}

void on_capture_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* cbdata) {
  // A module may load inside one of our own driver calls (a lazily loaded kernel): keep it.
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) on_module_loaded(static_cast<const CUpti_ResourceData*>(cbdata));
    return;
  }
  if (in_capture_call) return;
  in_capture_call = true;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    const auto* data = static_cast<const CUpti_CallbackData*>(cbdata);
    if (is_launch(cbid)) {
      if (data->callbackSite == CUPTI_API_ENTER) {
        if (auto l = launch_of(cbid, data->functionParams)) on_launch(data, *l);
      } else if (after_pending) {
        after_launch(data);
      }
    } else if (data->callbackSite == CUPTI_API_EXIT) {
      track_memory(cbid, data);
    }
  }
  in_capture_call = false;
}

void finish_capture() {
  Capture& c = capture();
  std::lock_guard lock(c.mutex);
  if (c.done) return;
  c.done = true;
  c.status = {};
  c.status.launches = c.selector->launches();
  try {
    write_status();
  } catch (...) {
  }
}

}  // namespace rpl::capture
