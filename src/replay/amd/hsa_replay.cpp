// rpl-hsa-replay: the AMD counterpart of rpl-cuda-replay (same arguments, same result document,
// schemas/replay.schema.json). The captured ranges are held by PROT_NONE host mappings before
// hsa_init, so that the runtime's own start-up reservations go elsewhere (reference/rocm.md §8),
// released, and reserved with hsa_amd_vmem_address_reserve at their addresses; a different
// address is a relocation. Memory is mapped from the GPU's coarse-grained pool and restored, the
// code object loaded, and the captured AQL packet (dispatch_packet.bin) submitted with the new
// kernel object and argument buffer, with system-scope acquire and release fences, timed by the
// runtime's profiling of the completion signal.
//
// The vmem functions (ROCm 6.0, AMD interface 1.4) are newer than Debian's headers; they are
// looked up in the loaded runtime by name, with their types declared here. It compiles on every CI
// run and runs on the stand-in HSA runtime in tests (tests/fixtures/fake_hsa); it has not run on AMD
// hardware.
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
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

namespace {
namespace fs = std::filesystem;
using namespace rpl;
using namespace rpl::isolate;
using ordered_json = nlohmann::ordered_json;
using replay::Options;

// ROCm 6's virtual-memory API, by the layouts of hsa_ext_amd.h 1.4.
struct VmemHandle {
  uint64_t handle;
};
struct VmemAccess {
  hsa_access_permission_t permissions;
  hsa_agent_t agent;
};
struct Vmem {
  hsa_status_t (*reserve)(void** va, size_t size, uint64_t address, uint64_t flags) = nullptr;
  hsa_status_t (*free)(void* va, size_t size) = nullptr;
  hsa_status_t (*create)(hsa_amd_memory_pool_t pool, size_t size, int type, uint64_t flags, VmemHandle* handle) = nullptr;
  hsa_status_t (*release)(VmemHandle handle) = nullptr;
  hsa_status_t (*map)(void* va, size_t size, size_t offset, VmemHandle handle, uint64_t flags) = nullptr;
  hsa_status_t (*unmap)(void* va, size_t size) = nullptr;
  hsa_status_t (*set_access)(void* va, size_t size, const VmemAccess* desc, size_t count) = nullptr;
};

void check(hsa_status_t s, const std::string& what, Errc code = Errc::run_failed) {
  if (s == HSA_STATUS_SUCCESS || s == HSA_STATUS_INFO_BREAK) return;
  const char* text = nullptr;
  hsa_status_string(s, &text);
  fail(code, "{}: {}", what, text ? text : "HSA error");
}

Vmem load_vmem() {
  Vmem v;
  void* runtime = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!runtime) runtime = RTLD_DEFAULT;
  auto find = [&](auto& fn, const char* name) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(runtime, name)); };
  find(v.reserve, "hsa_amd_vmem_address_reserve");
  find(v.free, "hsa_amd_vmem_address_free");
  find(v.create, "hsa_amd_vmem_handle_create");
  find(v.release, "hsa_amd_vmem_handle_release");
  find(v.map, "hsa_amd_vmem_map");
  find(v.unmap, "hsa_amd_vmem_unmap");
  find(v.set_access, "hsa_amd_vmem_set_access");
  if (!v.reserve || !v.free || !v.create || !v.release || !v.map || !v.unmap || !v.set_access) {
    fail(Errc::missing_tool, "this ROCm runtime has no virtual-memory API (hsa_amd_vmem_*, ROCm 6.0 or newer is needed)");
  }
  return v;
}

struct Device {
  hsa_agent_t gpu{};
  hsa_amd_memory_pool_t coarse{}, kernarg{};
  bool have_coarse = false, have_kernarg = false;
};

Device find_device() {
  Device d;
  bool found = false;
  hsa_iterate_agents(
      [](hsa_agent_t agent, void* data) {
        hsa_device_type_t type{};
        hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
        if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
        static_cast<Device*>(data)->gpu = agent;
        return HSA_STATUS_INFO_BREAK;
      },
      &d);
  char name[64] = {};
  found = hsa_agent_get_info(d.gpu, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS && name[0] == 'g';
  if (!found) fail(Errc::missing_tool, "no AMD GPU agent");
  hsa_amd_agent_iterate_memory_pools(
      d.gpu,
      [](hsa_amd_memory_pool_t pool, void* data) {
        auto* dev = static_cast<Device*>(data);
        hsa_amd_segment_t segment{};
        uint32_t flags = 0;
        hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
        hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
        if (segment == HSA_AMD_SEGMENT_GLOBAL && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !dev->have_coarse) {
          dev->coarse = pool;
          dev->have_coarse = true;
        }
        return HSA_STATUS_SUCCESS;
      },
      &d);
  // Argument buffers come from a system pool with the kernarg flag (the CPU agent's).
  hsa_iterate_agents(
      [](hsa_agent_t agent, void* data) {
        hsa_device_type_t type{};
        hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
        if (type != HSA_DEVICE_TYPE_CPU) return HSA_STATUS_SUCCESS;
        hsa_amd_agent_iterate_memory_pools(
            agent,
            [](hsa_amd_memory_pool_t pool, void* data2) {
              auto* dev = static_cast<Device*>(data2);
              uint32_t flags = 0;
              hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
              if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !dev->have_kernarg) {
                dev->kernarg = pool;
                dev->have_kernarg = true;
              }
              return HSA_STATUS_SUCCESS;
            },
            data);
        return HSA_STATUS_SUCCESS;
      },
      &d);
  if (!d.have_coarse || !d.have_kernarg) fail(Errc::missing_tool, "the GPU has no device-memory or kernel-argument pool");
  return d;
}

// Host mappings that keep the runtime's start-up off the captured ranges.
class Placeholders {
 public:
  explicit Placeholders(const std::vector<Span>& spans) {
    for (const auto& s : spans) {
      void* p = mmap(reinterpret_cast<void*>(s.base), s.size, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == reinterpret_cast<void*>(s.base)) held_.push_back(s);
      else if (p != MAP_FAILED) munmap(p, s.size);
    }
  }
  ~Placeholders() { release(); }
  void release() {
    for (const auto& s : held_) munmap(reinterpret_cast<void*>(s.base), s.size);
    held_.clear();
  }

 private:
  std::vector<Span> held_;
};

struct Mapped {
  void* va;
  size_t size;
  VmemHandle handle;
  bool mapped;
};

ordered_json run_replay(const Options& o) {
  const Snapshot snap = replay::read_checked_snapshot(o.capture_dir);
  if (snap.dispatch.vendor != "amd") fail(Errc::bad_input, "{}: a snapshot of an {} GPU; this replayer runs AMD ones", o.capture_dir.string(), snap.dispatch.vendor);
  const std::string packet_bytes = read_file(snap.dir / "dispatch_packet.bin");
  if (packet_bytes.size() != sizeof(hsa_kernel_dispatch_packet_t)) {
    fail(Errc::bad_input, "{}: {} bytes, an AQL packet has 64", (snap.dir / "dispatch_packet.bin").string(), packet_bytes.size());
  }
  hsa_kernel_dispatch_packet_t captured{};
  std::memcpy(&captured, packet_bytes.data(), sizeof captured);

  // Every current AMD GPU maps in 4 KiB pages and allocates in 2 MiB granules at most.
  const auto spans = reservation_spans(snap.memory.regions, 2ull << 20);
  Placeholders placeholders(spans);
  check(hsa_init(), "hsa_init (no usable AMD GPU)", Errc::missing_tool);
  const Vmem vmem = load_vmem();
  const Device dev = find_device();
  placeholders.release();

  ordered_json doc = replay::document_start(o, snap.dispatch.kernel_name, snap.dispatch.mangled_name);
  char name[64] = {};
  hsa_agent_get_info(dev.gpu, HSA_AGENT_INFO_NAME, name);
  doc["device"] = name;
  doc["granularity"] = 2ull << 20;
  doc["regions"] = snap.memory.regions.size();
  uint64_t needed = 0;
  for (const auto& s : spans) needed += s.size;
  doc["device_bytes"] = needed;

  std::vector<Mapped> held;
  auto release_all = [&] {
    for (auto it = held.rbegin(); it != held.rend(); ++it) {
      if (it->mapped) {
        vmem.unmap(it->va, it->size);
        vmem.release(it->handle);
      }
      vmem.free(it->va, it->size);
    }
    held.clear();
  };
  bool relocated = false, failed = false;
  auto reservations = ordered_json::array();
  for (const auto& s : spans) {
    void* got = nullptr;
    ordered_json entry = {{"base", hex_address(s.base)}, {"size", s.size}};
    const hsa_status_t r = vmem.reserve(&got, s.size, s.base, 0);
    if (r != HSA_STATUS_SUCCESS) {
      entry["status"] = "failed";
      entry["error"] = fmt::format("HSA status {:#x}", static_cast<unsigned>(r));
      failed = true;
    } else if (reinterpret_cast<uint64_t>(got) != s.base) {
      entry["status"] = "relocated";
      entry["got"] = hex_address(reinterpret_cast<uint64_t>(got));
      vmem.free(got, s.size);
      relocated = true;
    } else {
      entry["status"] = "exact";
      held.push_back({got, s.size, {}, false});
    }
    reservations.push_back(entry);
  }
  doc["reservations"] = reservations;
  doc["status"] = failed ? "failed" : relocated ? "relocated" : "exact";
  if (o.mode == "reserve-check" || failed || relocated) {
    release_all();
    if (o.mode == "reserve-check") return doc;
    throw rpl::replay::AddressesTaken(relocated ? "the runtime offered other addresses" : "the runtime refused");
  }
  try {
    const VmemAccess access{HSA_ACCESS_PERMISSION_RW, dev.gpu};
    for (auto& m : held) {
      check(vmem.create(dev.coarse, m.size, 0, 0, &m.handle), fmt::format("device memory for {}", hex_address(reinterpret_cast<uint64_t>(m.va))));
      check(vmem.map(m.va, m.size, 0, m.handle, 0), "hsa_amd_vmem_map");
      m.mapped = true;
      check(vmem.set_access(m.va, m.size, &access, 1), "hsa_amd_vmem_set_access");
    }
    // The code object and the kernel in it.
    const std::string image = read_file(snap.dir / snap.dispatch.code_object);
    hsa_code_object_reader_t reader{};
    check(hsa_code_object_reader_create_from_memory(image.data(), image.size(), &reader), "the code object cannot be read", Errc::bad_input);
    hsa_executable_t executable{};
    check(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr, &executable), "hsa_executable_create_alt");
    check(hsa_executable_load_agent_code_object(executable, dev.gpu, reader, nullptr, nullptr), "the code object cannot be loaded on this GPU",
          Errc::bad_input);
    check(hsa_executable_freeze(executable, nullptr), "hsa_executable_freeze");
    hsa_executable_symbol_t symbol{};
    if (hsa_executable_get_symbol_by_name(executable, (snap.dispatch.mangled_name + ".kd").c_str(), &dev.gpu, &symbol) != HSA_STATUS_SUCCESS) {
      check(hsa_executable_get_symbol_by_name(executable, snap.dispatch.mangled_name.c_str(), &dev.gpu, &symbol),
            "the code object has no kernel " + snap.dispatch.mangled_name, Errc::bad_input);
    }
    uint64_t kernel_object = 0;
    hsa_executable_symbol_get_info(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object);
    // The argument buffer, in kernel-argument memory.
    const std::string kernarg = read_file(snap.dir / "kernarg.bin");
    void* kernarg_buffer = nullptr;
    check(hsa_amd_memory_pool_allocate(dev.kernarg, std::max<size_t>(kernarg.size(), 64), 0, &kernarg_buffer), "kernel-argument memory");
    hsa_amd_agents_allow_access(1, &dev.gpu, nullptr, kernarg_buffer);
    std::memcpy(kernarg_buffer, kernarg.data(), kernarg.size());
    // The captured bytes, restored before each iteration (or the first, stateful).
    std::vector<std::string> bytes;
    for (const auto& r : snap.memory.regions) bytes.push_back(read_region(snap.dir, r));
    auto restore = [&] {
      for (size_t i = 0; i < bytes.size(); ++i) {
        check(hsa_memory_copy(reinterpret_cast<void*>(snap.memory.regions[i].base), bytes[i].data(), bytes[i].size()), "restoring memory");
      }
    };
    hsa_queue_t* queue = nullptr;
    check(hsa_queue_create(dev.gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &queue), "hsa_queue_create");
    hsa_amd_profiling_set_profiler_enabled(queue, 1);
    hsa_signal_t done{};
    check(hsa_signal_create(1, 0, nullptr, &done), "hsa_signal_create");
    uint64_t frequency = 1;
    hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency);

    std::vector<double> gpu_ms;
    const auto wall_start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < o.iterations; ++i) {
      if (i == 0 || o.recopy) restore();
      hsa_signal_store_screlease(done, 1);
      const uint64_t index = hsa_queue_add_write_index_relaxed(queue, 1);
      auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(queue->base_address) + (index % queue->size);
      hsa_kernel_dispatch_packet_t p = captured;
      p.kernel_object = kernel_object;
      p.kernarg_address = kernarg_buffer;
      p.completion_signal = done;
      // The body first, then the header that hands the packet to the GPU.
      std::memcpy(reinterpret_cast<char*>(slot) + 4, reinterpret_cast<const char*>(&p) + 4, sizeof p - 4);
      const uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                              (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                              (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
      __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header | (static_cast<uint32_t>(captured.setup) << 16), __ATOMIC_RELEASE);
      hsa_signal_store_screlease(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
      hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
      hsa_amd_profiling_dispatch_time_t t{};
      check(hsa_amd_profiling_get_dispatch_time(dev.gpu, done, &t), "the dispatch time");
      gpu_ms.push_back(static_cast<double>(t.end - t.start) * 1e3 / static_cast<double>(frequency));
    }
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
    if (!o.dump_dir.empty()) {
      std::vector<char> staging(64 * kChunkBytes);
      replay::dump_memory_or_fail(o.dump_dir, snap.memory.regions, [](uint64_t address, uint64_t n, char* into) {
        check(hsa_memory_copy(into, reinterpret_cast<const void*>(address), n), "copying memory back");
      }, staging);
    }
    hsa_signal_destroy(done);
    hsa_queue_destroy(queue);
    hsa_amd_memory_pool_free(kernarg_buffer);
    hsa_executable_destroy(executable);
    hsa_code_object_reader_destroy(reader);
    doc["timing"] = "profiling_signal";
    replay::add_timing(doc, o, gpu_ms, wall_ms);
  } catch (...) {
    release_all();
    throw;
  }
  release_all();
  hsa_shut_down();
  return doc;
}

}  // namespace

int main(int argc, char** argv) { return rpl::replay::replayer_main(argc, argv, "rpl-hsa-replay", run_replay); }
