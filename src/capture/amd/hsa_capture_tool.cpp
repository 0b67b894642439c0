// librpl_hsa_capture.so: rocm-perf isolate's capture on AMD GPUs, loaded by ROCr through
// HSA_TOOLS_LIB (it calls OnLoad with the runtime's API table, and OnUnload at shutdown). It
// follows memory-pool allocations, code objects and the kernels of frozen executables, makes every
// queue an intercept queue, and at the chosen dispatch drains the queue, writes the snapshot
// (docs/snapshot.md, plus dispatch_packet.bin, the AQL packet as submitted), lets the packet run,
// waits for it and dumps the memory into after/. Configuration as the CUDA capture's
// (src/capture/nvidia/cupti_capture.hpp): RPL_CAPTURE_DIR, RPL_CAPTURE_KERNEL, RPL_CAPTURE_DISPATCH.
// ROCr skips HSA_TOOLS_LIB when a rocprofiler-sdk tool (rocprofv3) is attached (reference/rocm.md
// §7.2), so isolate runs the program without one.
//
// Built against Debian's ROCm 5.2 headers in CI and run there on the stand-in HSA runtime
// (tests/fixtures/fake_hsa); it has not run on AMD hardware. VMM mappings
// (hsa_amd_vmem_map, ROCm 6, AMD interface 1.4) are followed only when it is built against headers
// whose API table has them, and the runtime's table is that large.
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rpl/core/demangle.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/capture_plan.hpp>
#include <rpl/isolate/capture_summary.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace {
namespace fs = std::filesystem;
using rpl::isolate::MemoryRegion;

struct KernelSymbol {
  std::string name;  // mangled, without ".kd"
  uint32_t kernarg_size = 0;
  uint32_t group_segment_size = 0;
  uint32_t private_segment_size = 0;
  hsa_agent_t agent{};
  hsa_executable_t executable{};
};

struct Tool {
  std::recursive_mutex mutex;
  CoreApiTable core{};  // the runtime's own functions, called by our wrappers
  AmdExtTable amd{};
  fs::path dir;
  std::optional<rpl::isolate::DispatchSelector> selector;
  rpl::isolate::AllocationTable allocations;
  std::map<uint64_t, std::string> reader_images;               // code object reader handle -> bytes
  std::map<uint64_t, std::vector<std::string>> executable_images;  // executable handle -> its code objects
  std::map<uint64_t, KernelSymbol> kernels;                     // kernel_object -> symbol
  bool done = false;
  rpl::isolate::CaptureStatus status;
};

Tool& tool() {
  static Tool* t = new Tool();  // never destroyed: OnUnload and exit handlers still use it
  return *t;
}

void write_status() {
  try {
    rpl::write_output_file(tool().dir / "capture_status.json", rpl::isolate::format_capture_status(tool().status));
  } catch (...) {
  }
}

void fail_capture(const std::string& why) {
  Tool& t = tool();
  t.done = true;
  t.status = {};
  t.status.error = why;
  std::fprintf(stderr, "rpl-hsa-capture: the capture failed: %s\n", why.c_str());
  write_status();
}

void check(hsa_status_t s, const char* what) {
  if (s == HSA_STATUS_SUCCESS) return;
  const char* text = nullptr;
  tool().core.hsa_status_string_fn(s, &text);
  throw std::runtime_error(std::string(what) + ": " + (text ? text : "HSA error"));
}

// --- allocations -----------------------------------------------------------------------------

hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr) {
  Tool& t = tool();
  const hsa_status_t s = t.amd.hsa_amd_memory_pool_allocate_fn(pool, size, flags, ptr);
  if (s != HSA_STATUS_SUCCESS) return s;
  uint32_t global_flags = 0;
  t.amd.hsa_amd_memory_pool_get_info_fn(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &global_flags);
  if (global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) return s;  // the runtime's argument buffers
  std::lock_guard lock(t.mutex);
  if (!t.done) {
    const bool coarse = global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
    t.allocations.add(reinterpret_cast<uint64_t>(*ptr), size, coarse ? "device" : "fine_grained");
  }
  return s;
}

hsa_status_t pool_free(void* ptr) {
  Tool& t = tool();
  {
    std::lock_guard lock(t.mutex);
    if (!t.done) t.allocations.remove(reinterpret_cast<uint64_t>(ptr));
  }
  return t.amd.hsa_amd_memory_pool_free_fn(ptr);
}

#if HSA_AMD_INTERFACE_VERSION_MINOR >= 4
hsa_status_t vmem_map(void* va, size_t size, size_t offset, hsa_amd_vmem_alloc_handle_t handle, uint64_t flags) {
  Tool& t = tool();
  const hsa_status_t s = t.amd.hsa_amd_vmem_map_fn(va, size, offset, handle, flags);
  std::lock_guard lock(t.mutex);
  if (s == HSA_STATUS_SUCCESS && !t.done) t.allocations.add(reinterpret_cast<uint64_t>(va), size, "vmm");
  return s;
}

hsa_status_t vmem_unmap(void* va, size_t size) {
  Tool& t = tool();
  {
    std::lock_guard lock(t.mutex);
    if (!t.done) t.allocations.remove(reinterpret_cast<uint64_t>(va));
  }
  return t.amd.hsa_amd_vmem_unmap_fn(va, size);
}
#endif

// --- code objects and kernels ----------------------------------------------------------------

hsa_status_t reader_from_memory(const void* code, size_t size, hsa_code_object_reader_t* reader) {
  Tool& t = tool();
  const hsa_status_t s = t.core.hsa_code_object_reader_create_from_memory_fn(code, size, reader);
  if (s == HSA_STATUS_SUCCESS) {
    std::lock_guard lock(t.mutex);
    t.reader_images[reader->handle] = std::string(static_cast<const char*>(code), size);
  }
  return s;
}

hsa_status_t reader_from_file(hsa_file_t file, hsa_code_object_reader_t* reader) {
  Tool& t = tool();
  const hsa_status_t s = t.core.hsa_code_object_reader_create_from_file_fn(file, reader);
  if (s != HSA_STATUS_SUCCESS) return s;
  std::string image;
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    const ssize_t n = pread(file, buffer, sizeof buffer, at);
    if (n <= 0) break;
    image.append(buffer, static_cast<size_t>(n));
    at += n;
  }
  std::lock_guard lock(t.mutex);
  t.reader_images[reader->handle] = std::move(image);
  return s;
}

hsa_status_t load_code_object(hsa_executable_t executable, hsa_agent_t agent, hsa_code_object_reader_t reader,
                              const char* options, hsa_loaded_code_object_t* loaded) {
  Tool& t = tool();
  const hsa_status_t s = t.core.hsa_executable_load_agent_code_object_fn(executable, agent, reader, options, loaded);
  if (s == HSA_STATUS_SUCCESS) {
    std::lock_guard lock(t.mutex);
    if (auto it = t.reader_images.find(reader.handle); it != t.reader_images.end()) {
      t.executable_images[executable.handle].push_back(it->second);
    }
  }
  return s;
}

hsa_status_t record_symbol(hsa_executable_t executable, hsa_executable_symbol_t symbol, void*) {
  Tool& t = tool();
  hsa_symbol_kind_t kind{};
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind);
  if (kind != HSA_SYMBOL_KIND_KERNEL) return HSA_STATUS_SUCCESS;
  uint32_t length = 0;
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length);
  KernelSymbol k;
  k.name.assign(length, '\0');
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, k.name.data());
  if (k.name.size() > 3 && k.name.compare(k.name.size() - 3, 3, ".kd") == 0) k.name.resize(k.name.size() - 3);
  uint64_t object = 0;
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object);
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &k.kernarg_size);
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &k.group_segment_size);
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &k.private_segment_size);
  t.core.hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_AGENT, &k.agent);
  k.executable = executable;
  std::lock_guard lock(t.mutex);
  t.kernels[object] = std::move(k);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_freeze(hsa_executable_t executable, const char* options) {
  Tool& t = tool();
  const hsa_status_t s = t.core.hsa_executable_freeze_fn(executable, options);
  if (s == HSA_STATUS_SUCCESS) t.core.hsa_executable_iterate_symbols_fn(executable, record_symbol, nullptr);
  return s;
}

// The code object that defines the kernel: the executable's only one, else the one naming it.
std::string code_object_of(const KernelSymbol& k) {
  Tool& t = tool();
  const auto it = t.executable_images.find(k.executable.handle);
  if (it == t.executable_images.end() || it->second.empty()) throw std::runtime_error("the code object of " + k.name + " was not seen loading");
  if (it->second.size() == 1) return it->second.front();
  const std::string needle = k.name + ".kd";
  for (const auto& image : it->second) {
    if (image.find(needle + '\0') != std::string::npos) return image;
  }
  throw std::runtime_error("no code object of its executable names " + k.name);
}

// --- the dispatch ------------------------------------------------------------------------------

std::string agent_text(hsa_agent_t agent, hsa_agent_info_t what) {
  char buffer[64] = {};
  tool().core.hsa_agent_get_info_fn(agent, what, buffer);
  return buffer;
}

// The regions' bytes as chunked files (region_store.hpp). headroom: see dump_memory.
rpl::isolate::StoredBytes dump_regions(const fs::path& dir, std::vector<MemoryRegion>& regions, double headroom) {
  std::vector<char> staging(64 * rpl::isolate::kChunkBytes);
  const auto read = [](uint64_t address, uint64_t n, char* into) {
    check(tool().core.hsa_memory_copy_fn(into, reinterpret_cast<const void*>(address), n), "hsa_memory_copy");
  };
  return rpl::isolate::dump_memory(dir, regions, read, staging, headroom);
}

// Submits a barrier packet behind everything already in the queue and waits for it.
void drain(hsa_queue_t* queue, hsa_amd_queue_intercept_packet_writer writer) {
  Tool& t = tool();
  hsa_signal_t done{};
  check(t.core.hsa_signal_create_fn(1, 0, nullptr, &done), "hsa_signal_create");
  hsa_barrier_and_packet_t barrier{};
  barrier.header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                   (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                   (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  barrier.completion_signal = done;
  writer(&barrier, 1);
  t.core.hsa_signal_wait_scacquire_fn(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  t.core.hsa_signal_destroy_fn(done);
  (void)queue;
}

void write_snapshot(const hsa_kernel_dispatch_packet_t& p, const KernelSymbol& k, uint64_t index,
                    std::vector<MemoryRegion>& regions) {
  Tool& t = tool();
  rpl::isolate::DispatchRecord d;
  d.vendor = "amd";
  d.device_name = agent_text(k.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_PRODUCT_NAME));
  d.architecture = agent_text(k.agent, HSA_AGENT_INFO_NAME);
  d.kernel_name = rpl::demangle(k.name);
  d.mangled_name = k.name;
  d.code_object = "kernel.hsaco";
  d.dispatch_index = index;
  d.block = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
  const uint32_t sizes[3] = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
  for (int i = 0; i < 3; ++i) d.grid[i] = (sizes[i] + d.block[i] - 1) / std::max<uint32_t>(d.block[i], 1);
  d.static_shared_bytes = k.group_segment_size;
  d.dynamic_shared_bytes = p.group_segment_size > k.group_segment_size ? p.group_segment_size - k.group_segment_size : 0;
  d.scratch_bytes = p.private_segment_size;
  d.kernarg_size = k.kernarg_size;
  d.arguments = {{0, k.kernarg_size}};  // the layout lives in the code object's metadata
  rpl::write_output_file(t.dir / "kernarg.bin", std::string_view(static_cast<const char*>(p.kernarg_address), k.kernarg_size));
  rpl::write_output_file(t.dir / "dispatch_packet.bin", std::string_view(reinterpret_cast<const char*>(&p), sizeof p));
  rpl::write_output_file(t.dir / d.code_object, code_object_of(k));
  regions = t.allocations.regions();
  const auto stored = dump_regions(t.dir, regions, 2.0);  // room for after/ too
  rpl::isolate::write_dispatch_record(t.dir, d);
  t.status = {};
  t.status.captured = true;
  t.status.kernel = k.name;
  t.status.dispatch_index = index;
  t.status.regions = regions.size();
  t.status.bytes = t.allocations.total_bytes();
  t.status.stored_bytes = stored.stored;
  t.status.skipped_bytes = stored.skipped;
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void on_packets(const void* packets, uint64_t count, uint64_t, void* data, hsa_amd_queue_intercept_packet_writer writer) {
  Tool& t = tool();
  const auto* p = static_cast<const hsa_kernel_dispatch_packet_t*>(packets);
  uint64_t forwarded = 0;
  std::lock_guard lock(t.mutex);
  for (uint64_t i = 0; i < count && !t.done; ++i) {
    const auto type = (p[i].header >> HSA_PACKET_HEADER_TYPE) & ((1 << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
    if (type != HSA_PACKET_TYPE_KERNEL_DISPATCH) continue;
    const auto k = t.kernels.find(p[i].kernel_object);
    if (k == t.kernels.end()) continue;
    const auto index = t.selector->on_launch(k->second.name);
    if (!index) continue;
    t.done = true;
    try {
      const auto start = std::chrono::steady_clock::now();
      writer(p + forwarded, i - forwarded);  // what came before runs first
      drain(static_cast<hsa_queue_t*>(data), writer);
      std::vector<MemoryRegion> regions;
      write_snapshot(p[i], k->second, *index, regions);
      t.status.capture_ms = ms_since(start);
      writer(p + i, 1);
      forwarded = i + 1;
      const auto after = std::chrono::steady_clock::now();
      drain(static_cast<hsa_queue_t*>(data), writer);
      dump_regions(t.dir / "after", regions, 1.0);
      t.status.after_ms = ms_since(after);
      write_status();
    } catch (const std::exception& e) {
      fail_capture(e.what());
    }
  }
  if (forwarded < count) writer(p + forwarded, count - forwarded);
}

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data, uint32_t private_size,
                          uint32_t group_size, hsa_queue_t** queue) {
  Tool& t = tool();
  hsa_status_t s = t.amd.hsa_amd_queue_intercept_create_fn(agent, size, type, callback, data, private_size, group_size, queue);
  if (s != HSA_STATUS_SUCCESS) return s;
  return t.amd.hsa_amd_queue_intercept_register_fn(*queue, on_packets, *queue);
}

void finish() {
  Tool& t = tool();
  std::lock_guard lock(t.mutex);
  if (t.done) return;
  t.done = true;
  t.status = {};
  t.status.launches = t.selector->launches();
  write_status();
}

}  // namespace

extern "C" __attribute__((visibility("default"))) bool OnLoad(HsaApiTable* table, uint64_t, uint64_t, const char* const*) {
  Tool& t = tool();
  const char* dir = std::getenv("RPL_CAPTURE_DIR");
  if (!dir || !*dir) return false;  // not asked to capture: unload
  t.dir = dir;
  const char* pattern = std::getenv("RPL_CAPTURE_KERNEL");
  const char* index = std::getenv("RPL_CAPTURE_DISPATCH");
  try {
    t.selector.emplace(pattern && *pattern ? pattern : ".", index ? std::strtoull(index, nullptr, 10) : 0);
  } catch (const std::exception& e) {
    fail_capture(e.what());
    return false;
  }
  t.core = *table->core_;
  t.amd = *table->amd_ext_;
  table->core_->hsa_queue_create_fn = queue_create;
  table->core_->hsa_code_object_reader_create_from_memory_fn = reader_from_memory;
  table->core_->hsa_code_object_reader_create_from_file_fn = reader_from_file;
  table->core_->hsa_executable_load_agent_code_object_fn = load_code_object;
  table->core_->hsa_executable_freeze_fn = executable_freeze;
  table->amd_ext_->hsa_amd_memory_pool_allocate_fn = pool_allocate;
  table->amd_ext_->hsa_amd_memory_pool_free_fn = pool_free;
#if HSA_AMD_INTERFACE_VERSION_MINOR >= 4
  // The table's minor_id is its size: an older runtime's table ends before these members.
  if (table->amd_ext_->version.minor_id >= offsetof(AmdExtTable, hsa_amd_vmem_unmap_fn) + sizeof(void*)) {
    table->amd_ext_->hsa_amd_vmem_map_fn = vmem_map;
    table->amd_ext_->hsa_amd_vmem_unmap_fn = vmem_unmap;
  }
#endif
  std::atexit(finish);
  return true;
}

extern "C" __attribute__((visibility("default"))) void OnUnload() { finish(); }
