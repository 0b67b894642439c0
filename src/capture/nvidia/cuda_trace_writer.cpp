#include "cuda_trace_data.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_writer.hpp>

namespace rpl::capture {
namespace fs = std::filesystem;

namespace {

constexpr int64_t kHostAgentId = 0;

int64_t gpu_agent_id(uint32_t device) { return int64_t{device} + 1; }

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

// rocprofv3's names for copy directions; CUDA's array and peer kinds keep their own.
std::string memcpy_name(uint8_t kind) {
  switch (kind) {
    case 1: return "MEMORY_COPY_HOST_TO_DEVICE";
    case 2: return "MEMORY_COPY_DEVICE_TO_HOST";
    case 8: return "MEMORY_COPY_DEVICE_TO_DEVICE";
    case 9: return "MEMORY_COPY_HOST_TO_HOST";
    case 10: return "MEMORY_COPY_PEER_TO_PEER";
    case 3: return "MEMORY_COPY_HOST_TO_ARRAY";
    case 4: return "MEMORY_COPY_ARRAY_TO_HOST";
    case 5: return "MEMORY_COPY_ARRAY_TO_ARRAY";
    case 6: return "MEMORY_COPY_ARRAY_TO_DEVICE";
    case 7: return "MEMORY_COPY_DEVICE_TO_ARRAY";
    default: return "MEMORY_COPY_UNKNOWN";
  }
}

std::string sync_name(uint32_t type) {
  switch (type) {
    case 1: return "cudaEventSynchronize";
    case 2: return "cudaStreamWaitEvent";
    case 3: return "cudaStreamSynchronize";
    case 4: return "cudaDeviceSynchronize";
    default: return "synchronization";
  }
}

std::string uuid_for(const CudaTraceData& d) {
  // Unique enough per process: start time, pid and host.
  uint64_t h = 1469598103934665603ULL;
  for (char c : d.hostname) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  const uint64_t ms = d.start_ns / 1'000'000;
  return fmt::format("{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}", static_cast<uint32_t>(ms >> 16), static_cast<uint16_t>(ms),
                     static_cast<uint32_t>(d.pid) & 0xfff, 0x8000 | (static_cast<uint16_t>(h) & 0x3fff),
                     (h ^ static_cast<uint64_t>(d.pid)) & 0xffffffffffffULL);
}

}  // namespace

std::string sm_arch_name(int cc_major, int cc_minor) { return fmt::format("sm_{}{}", cc_major, cc_minor); }

void write_cuda_trace(const fs::path& path, const CudaTraceData& data) {
  const fs::path temporary = path.string() + ".tmp";
  std::error_code ec;
  fs::remove(temporary, ec);
  trace::RocpdProcessInfo process;
  process.uuid = uuid_for(data);
  process.pid = data.pid;
  process.ppid = data.ppid;
  process.hostname = data.hostname;
  process.command = data.command;
  process.start_ns = static_cast<int64_t>(data.start_ns);
  process.end_ns = static_cast<int64_t>(data.end_ns);
  {
    // Written to a temporary file renamed into place when complete: no journal needed.
    trace::RocpdWriter w(temporary, process, false, {.event_rows = false, .journal = false});
    trace::Agent host;
    host.id = kHostAgentId;
    host.type = "CPU";
    host.name = "host";
    host.vendor_name = "CPU";
    w.add_agent(host);
    for (const auto& dev : data.devices) {
      trace::Agent a;
      a.id = gpu_agent_id(dev.id);
      a.type = "GPU";
      a.name = sm_arch_name(dev.cc_major, dev.cc_minor);
      a.vendor_name = "NVIDIA";
      a.product_name = dev.name;
      a.compute_units = dev.sm_count;
      a.simds_per_cu = 4;  // SM sub-partitions
      a.wave_size = dev.warp_size;
      a.max_waves_per_cu = dev.warp_size > 0 ? dev.max_threads_per_sm / dev.warp_size : 0;
      if (dev.clock_khz > 0) a.max_clock_mhz = dev.clock_khz / 1000.0;
      a.lds_kib = dev.shared_memory_per_sm / 1024;
      w.add_agent(a, {{"compute_capability", fmt::format("{}.{}", dev.cc_major, dev.cc_minor)},
                      {"sm_count", dev.sm_count},
                      {"warp_size", dev.warp_size},
                      {"max_threads_per_sm", dev.max_threads_per_sm},
                      {"registers_per_sm", dev.registers_per_sm},
                      {"shared_memory_per_sm", dev.shared_memory_per_sm},
                      {"shared_memory_per_block_optin", dev.shared_memory_per_block_optin},
                      {"l2_cache_bytes", dev.l2_cache_bytes},
                      {"clock_khz", dev.clock_khz},
                      {"memory_clock_khz", dev.memory_clock_khz},
                      {"memory_bus_width_bits", dev.memory_bus_width_bits}});
    }

    // One symbol per distinct (name, registers, static shared, local memory).
    std::vector<const CudaKernelRecord*> kernels;
    kernels.reserve(data.kernels.size());
    for (const auto& k : data.kernels) kernels.push_back(&k);
    std::stable_sort(kernels.begin(), kernels.end(), [](const auto* a, const auto* b) {
      return std::tie(a->start, a->correlation) < std::tie(b->start, b->correlation);
    });
    std::map<std::tuple<uint32_t, uint16_t, int32_t, uint32_t>, int64_t> symbols;
    int64_t dispatch_id = 0;
    for (const auto* k : kernels) {
      auto key = std::make_tuple(k->name, k->registers_per_thread, k->static_shared, k->local_memory_per_thread);
      auto [it, inserted] = symbols.try_emplace(key, static_cast<int64_t>(symbols.size()) + 1);
      if (inserted) {
        trace::KernelSymbol s;
        s.id = it->second;
        s.mangled_name = k->name < data.names.size() ? data.names[k->name] : "<unnamed>";
        s.display_name = demangled(s.mangled_name);
        s.arch_vgpr_count = k->registers_per_thread;
        s.group_segment_size = k->static_shared;
        s.private_segment_size = k->local_memory_per_thread;
        w.add_kernel_symbol(s);
      }
      trace::Dispatch d{};
      d.id = ++dispatch_id;
      d.start_ns = static_cast<int64_t>(k->start);
      d.end_ns = static_cast<int64_t>(k->end);
      d.queue_id = k->stream;
      d.stream_id = k->stream;
      trace::DispatchGeometry g;
      for (int i = 0; i < 3; ++i) {
        g.workgroup[i] = static_cast<uint32_t>(k->block[i]);
        g.grid[i] = static_cast<uint32_t>(k->grid[i]) * static_cast<uint32_t>(k->block[i]);  // work-items
      }
      g.group_segment_size = static_cast<uint32_t>(k->static_shared + k->dynamic_shared);
      g.private_segment_size = k->local_memory_per_thread;
      // Formatted directly: a traced program may have launched millions of kernels.
      std::string ext = fmt::format(
          R"({{"correlation_id":{},"context_id":{},"blocks":[{},{},{}],"shared_memory_executed":{},"shmem_limit_config":{})",
          k->correlation, k->context, k->grid[0], k->grid[1], k->grid[2], k->shared_memory_executed, k->shmem_limit_config);
      if (k->launch_type != 0) {
        ext += k->launch_type == 1 ? R"(,"launch_type":"cooperative")" : R"(,"launch_type":"cooperative_multi_device")";
      }
      if (k->graph_id != 0) ext += fmt::format(R"(,"graph_id":{},"graph_node_id":{})", k->graph_id, k->graph_node_id);
      ext += '}';
      w.add_dispatch(d, g, gpu_agent_id(k->device), it->second, ext);
    }

    int64_t copy_id = 0;
    for (const auto& c : data.memcpys) {
      trace::MemoryCopy m;
      m.id = ++copy_id;
      m.start_ns = static_cast<int64_t>(c.start);
      m.end_ns = static_cast<int64_t>(c.end);
      m.size = static_cast<int64_t>(c.bytes);
      m.name = memcpy_name(c.copy_kind);
      const bool from_host = c.copy_kind == 1 || c.copy_kind == 3 || c.copy_kind == 9;
      const bool to_host = c.copy_kind == 2 || c.copy_kind == 4 || c.copy_kind == 9;
      m.src_agent_id = from_host ? kHostAgentId : gpu_agent_id(c.device);
      m.dst_agent_id = to_host ? kHostAgentId : gpu_agent_id(c.device);
      m.queue_id = c.stream;
      m.stream_id = c.stream;
      nlohmann::json ext = {{"correlation_id", c.correlation}};
      if (c.graph_id != 0) ext["graph_id"] = c.graph_id;
      w.add_memory_copy(m, ext);
    }
    for (const auto& s : data.memsets) {
      trace::MemoryCopy m;  // rocpd has no memset table: a copy named MEMORY_SET, value in extdata
      m.id = ++copy_id;
      m.start_ns = static_cast<int64_t>(s.start);
      m.end_ns = static_cast<int64_t>(s.end);
      m.size = static_cast<int64_t>(s.bytes);
      m.name = "MEMORY_SET";
      m.src_agent_id = m.dst_agent_id = gpu_agent_id(s.device);
      m.queue_id = m.stream_id = s.stream;
      w.add_memory_copy(m, {{"correlation_id", s.correlation}, {"value", s.value}});
    }
    for (const auto& s : data.syncs) {
      w.add_region(sync_name(s.type), static_cast<int64_t>(s.start), static_cast<int64_t>(s.end),
                   {{"correlation_id", s.correlation}, {"stream_id", s.stream}});
    }
    w.add_metadata("rpl_tracer", "cupti");
    w.add_metadata("rpl_dropped_records", std::to_string(data.dropped_records));
    w.finish();
  }
  fs::rename(temporary, path);
}

}  // namespace rpl::capture
