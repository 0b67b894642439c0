// rpl-cuda-replay: runs one captured dispatch (docs/snapshot.md) alone, at the addresses it had,
// with the CUDA driver API. rocm-perf replay spawns it, so that a kernel that faults takes only this
// process down, and reads the document it writes.
//   rpl-cuda-replay reserve-check|full-vm --capture-dir D --result FILE
//                   [--iterations N] [--no-recopy] [--dump-outputs DIR]
// Every captured region is reserved with cuMemAddressReserve at its own address before anything
// else is loaded or allocated; the driver takes the address as a hint, so each reservation is
// compared with what was asked and a relocated one is an error (the kernel's pointers would be
// wrong). Each launch is timed as the trace times kernels (kernel_timer.hpp). (Holding the ranges with host mappings while the driver starts does not help: the
// driver then places reservations just past where those mappings were, even once they are gone.) The result document (schemas/replay.schema.json) carries "error" and "exit" on failure:
// exit 1 a failure, 2 bad input or (reserve-check) a relocated region, 3 no usable GPU.
// RPL_REPLAY_OCCUPY_FIRST_REGION (for tests) maps host memory over the first region beforehand,
// so that its reservation cannot be had.
#include <cuda.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/capture_plan.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

#include "../replayer_main.hpp"
#include "cu_check.hpp"
#include "kernel_timer.hpp"
#include "l2_flush.hpp"

namespace {
namespace fs = std::filesystem;
using namespace rpl;
using namespace rpl::isolate;
using ordered_json = nlohmann::ordered_json;
using replay::check;
using replay::Options;

std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }

// CUDA's driver serves small reservations from its own pool whatever the hint, and places a large
// one at the hint rounded up to 32 MiB (seen on an H100: tests/gpu/programs/va_hint_probe.cu). So
// whole aligned arenas are reserved around the captured ranges, and memory is mapped into them.
constexpr uint64_t kArenaAlignment = 32ull << 20, kArenaMinimum = 512ull << 20;

// Reserved arenas and the memory mapped into them; released in reverse on destruction.
class Reservations {
 public:
  ~Reservations() {
    for (auto it = mapped_.rbegin(); it != mapped_.rend(); ++it) {
      cuMemUnmap(it->base, it->size);
      cuMemRelease(it->handle);
    }
    for (auto it = arenas_.rbegin(); it != arenas_.rend(); ++it) cuMemAddressFree(it->base, it->size);
  }
  struct Mapped {
    CUdeviceptr base;
    size_t size;
    CUmemGenericAllocationHandle handle;
  };
  std::vector<Span> arenas_;
  std::vector<Mapped> mapped_;
};

ordered_json reserve(const std::vector<Span>& arenas, Reservations& held, bool& relocated, bool& failed) {
  auto out = ordered_json::array();
  for (const auto& s : arenas) {
    CUdeviceptr got = 0;
    ordered_json entry = {{"base", hex_address(s.base)}, {"size", s.size}};
    const CUresult r = cuMemAddressReserve(&got, s.size, 0, s.base, 0);
    if (r != CUDA_SUCCESS) {
      const char* name = nullptr;
      cuGetErrorName(r, &name);
      entry["status"] = "failed";
      entry["error"] = name ? name : "unknown";
      failed = true;
    } else if (got != s.base) {
      entry["status"] = "relocated";
      entry["got"] = hex_address(got);
      cuMemAddressFree(got, s.size);
      relocated = true;
    } else {
      entry["status"] = "exact";
      held.arenas_.push_back(s);
    }
    out.push_back(entry);
  }
  return out;
}

void map_memory(const std::vector<Span>& spans, Reservations& held, CUdevice dev) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, static_cast<int>(dev)};
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (const auto& s : spans) {
    Reservations::Mapped m{s.base, s.size, 0};
    check(cuMemCreate(&m.handle, s.size, &prop, 0), fmt::format("cuMemCreate of {} at {}", mib(s.size), hex_address(s.base)));
    if (const CUresult r = cuMemMap(s.base, s.size, 0, m.handle, 0); r != CUDA_SUCCESS) {
      cuMemRelease(m.handle);
      check(r, fmt::format("cuMemMap at {}", hex_address(s.base)));
    }
    held.mapped_.push_back(m);
    check(cuMemSetAccess(s.base, s.size, &access, 1), fmt::format("cuMemSetAccess at {}", hex_address(s.base)));
  }
}

// The captured bytes, in pinned host memory so that restoring them before each iteration is fast;
// a stretch nobody wrote (host null) is restored by clearing it on the device.
struct HostCopy {
  uint64_t device_address;
  uint64_t size;
  void* host = nullptr;
};

void load_region_copies(const fs::path& dir, const MemoryRegion& r, std::vector<HostCopy>& copies) {
  const RegionFile file(dir, r);
  for (const auto& run : file.runs()) {
    HostCopy c{r.base + run.offset, run.size};
    if (!run.zero) {
      check(cuMemAllocHost(&c.host, run.size), "cuMemAllocHost of " + mib(run.size));
      file.read(run.offset, run.size, static_cast<char*>(c.host));
    }
    copies.push_back(c);
  }
}

HostCopy load_host_copy(const fs::path& file, uint64_t address, uint64_t size) {
  HostCopy c{address, size};
  check(cuMemAllocHost(&c.host, std::max<uint64_t>(size, 1)), "cuMemAllocHost of " + mib(size));
  std::ifstream in(file, std::ios::binary);
  in.read(static_cast<char*>(c.host), static_cast<std::streamsize>(size));
  if (static_cast<uint64_t>(in.gcount()) != size) fail(Errc::bad_input, "{}: cannot be read", file.string());
  return c;
}

void dump_outputs(const MemoryImage& image, const fs::path& dir) {
  constexpr uint64_t kStaging = 64 * kChunkBytes;
  void* staging = nullptr;
  check(cuMemAllocHost(&staging, kStaging), "cuMemAllocHost of the staging buffer");
  try {
    replay::dump_memory_or_fail(dir, image.regions, [](uint64_t address, uint64_t n, char* into) {
      check(cuMemcpyDtoH(into, address, n), "copying memory back");
    }, {static_cast<char*>(staging), kStaging});
  } catch (...) {
    cuMemFreeHost(staging);
    throw;
  }
  cuMemFreeHost(staging);
}

ordered_json run_replay(const Options& o) {
  const Snapshot snap = replay::read_checked_snapshot(o.capture_dir);
  if (snap.dispatch.vendor != "nvidia") fail(Errc::bad_input, "{}: a snapshot of an {} GPU; this replayer runs NVIDIA ones", o.capture_dir.string(), snap.dispatch.vendor);
  check(cuInit(0), "cuInit (no usable NVIDIA GPU)", Errc::missing_tool);
  CUdevice dev = 0;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet", Errc::missing_tool);
  CUcontext ctx = nullptr;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", Errc::missing_tool);
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, static_cast<int>(dev)};
  size_t granularity = 0;
  check(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
  const auto spans = reservation_spans(snap.memory.regions, granularity);
  const auto arenas = arena_spans(spans, std::max<uint64_t>(granularity, kArenaAlignment), kArenaMinimum);
  if (std::getenv("RPL_REPLAY_OCCUPY_FIRST_REGION") && !spans.empty()) {
    mmap(reinterpret_cast<void*>(spans[0].base), spans[0].size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  }
  uint64_t needed = 0;
  for (const auto& s : spans) needed += s.size;

  ordered_json doc = replay::document_start(o, snap.dispatch.kernel_name, snap.dispatch.mangled_name);
  char name[256] = {};
  cuDeviceGetName(name, sizeof name - 1, dev);
  doc["device"] = name;
  doc["granularity"] = granularity;
  doc["regions"] = snap.memory.regions.size();
  doc["device_bytes"] = needed;

  Reservations held;
  bool relocated = false, failed = false;
  doc["reservations"] = reserve(arenas, held, relocated, failed);
  doc["status"] = failed ? "failed" : relocated ? "relocated" : "exact";
  if (o.mode == "reserve-check") return doc;
  if (failed || relocated) {
    throw rpl::replay::AddressesTaken(relocated ? "the driver offered other addresses" : "the driver refused");
  }
  size_t free_bytes = 0, total_bytes = 0;
  check(cuMemGetInfo(&free_bytes, &total_bytes), "cuMemGetInfo");
  if (needed > free_bytes) {
    fail(Errc::run_failed, "the snapshot needs {} of device memory, and {} of {} are free", mib(needed), mib(free_bytes), mib(total_bytes));
  }
  map_memory(spans, held, dev);

  // The memory to restore, the code, the globals, the arguments.
  std::vector<HostCopy> copies;
  for (const auto& r : snap.memory.regions) load_region_copies(snap.dir, r, copies);
  CUmodule module = nullptr;
  const std::string image = read_file(snap.dir / snap.dispatch.code_object);
  check(cuModuleLoadData(&module, image.data()), (snap.dir / snap.dispatch.code_object).string() + ": the driver cannot load it", Errc::bad_input);
  CUfunction f = nullptr;
  check(cuModuleGetFunction(&f, module, snap.dispatch.mangled_name.c_str()),
        "the code object has no kernel " + snap.dispatch.mangled_name, Errc::bad_input);
  for (const auto& g : snap.dispatch.globals) {
    CUdeviceptr address = 0;
    size_t size = 0;
    check(cuModuleGetGlobal(&address, &size, module, g.name.c_str()), "the code object has no global " + g.name, Errc::bad_input);
    if (size != g.size) fail(Errc::bad_input, "global {}: {} bytes in the code object, {} captured", g.name, size, g.size);
    copies.push_back(load_host_copy(snap.dir / g.file, address, size));
  }
  const auto& d = snap.dispatch;
  if (d.dynamic_shared_bytes > 0) {
    check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(d.dynamic_shared_bytes)),
          fmt::format("allowing {} bytes of dynamic shared memory", d.dynamic_shared_bytes));
  }
  std::vector<CUlaunchAttribute> attrs;
  if (d.cluster) {
    CUlaunchAttribute a{};
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = (*d.cluster)[0], a.value.clusterDim.y = (*d.cluster)[1], a.value.clusterDim.z = (*d.cluster)[2];
    attrs.push_back(a);
    if ((*d.cluster)[0] * (*d.cluster)[1] * (*d.cluster)[2] > 8) cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  }
  if (d.cooperative) {
    CUlaunchAttribute a{};
    a.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    a.value.cooperative = 1;
    attrs.push_back(a);
  }
  std::string kernarg = read_file(snap.dir / "kernarg.bin");
  size_t kernarg_size = kernarg.size();
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, kernarg.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &kernarg_size, CU_LAUNCH_PARAM_END};
  CUstream stream = nullptr;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUlaunchConfig cfg{};
  cfg.gridDimX = d.grid[0], cfg.gridDimY = d.grid[1], cfg.gridDimZ = d.grid[2];
  cfg.blockDimX = d.block[0], cfg.blockDimY = d.block[1], cfg.blockDimZ = d.block[2];
  cfg.sharedMemBytes = d.dynamic_shared_bytes;
  cfg.hStream = stream;
  cfg.attrs = attrs.data();
  cfg.numAttrs = static_cast<unsigned>(attrs.size());
  replay::L2Flush flush(dev);
  replay::KernelTimer timer;
  const auto wall_start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < o.iterations; ++i) {
    if (i == 0 || o.recopy) {
      for (const auto& c : copies) {
        check(c.host ? cuMemcpyHtoDAsync(c.device_address, c.host, c.size, stream) : cuMemsetD8Async(c.device_address, 0, c.size, stream),
              "restoring memory");
      }
      flush.enqueue(stream);
    }
    timer.before_launch(stream);
    check(cuLaunchKernelEx(&cfg, f, nullptr, extra), "launching " + d.kernel_name);
    timer.after_launch(stream);
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
  const auto gpu_ms = timer.durations_ms();
  if (gpu_ms.size() != o.iterations) {
    fail(Errc::internal, "{} launches timed, {} recorded by CUPTI", o.iterations, gpu_ms.size());
  }
  doc["timing"] = timer.method();
  if (!o.dump_dir.empty()) dump_outputs(snap.memory, o.dump_dir);
  for (const auto& c : copies) {
    if (c.host) cuMemFreeHost(c.host);
  }
  cuModuleUnload(module);

  replay::add_timing(doc, o, gpu_ms, wall_ms);
  return doc;
}

}  // namespace

int main(int argc, char** argv) { return rpl::replay::replayer_main(argc, argv, "rpl-cuda-replay", run_replay); }
