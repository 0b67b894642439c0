#include "cuda_trace_data.hpp"

#include <optional>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include <rpl/core/demangle.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/cupti_kinds.hpp>
#include <rpl/trace/rocpd_writer.hpp>

namespace rpl::capture {
namespace fs = std::filesystem;

namespace {

constexpr int64_t kHostAgentId = 0;

int64_t gpu_agent_id(uint32_t device) { return int64_t{device} + 1; }

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

struct CudaTraceWriter::Impl {
  fs::path path, temporary;
  std::string trace_level, rank;
  std::unique_ptr<trace::RocpdWriter> writer;
  std::set<uint32_t> devices;
  std::vector<std::string> names;  // every kernel name added, in first-seen order
  std::map<std::tuple<uint32_t, uint16_t, int32_t, uint32_t>, int64_t> symbols;
  int64_t dispatch_id = 0, copy_id = 0;

  void add_device(const CudaDeviceInfo& dev) {
    if (!devices.insert(dev.id).second) return;
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
    writer->add_agent(a, {{"compute_capability", fmt::format("{}.{}", dev.cc_major, dev.cc_minor)},
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
  int64_t symbol_for(const CudaKernelRecord& k) {
    auto key = std::make_tuple(k.name, k.registers_per_thread, k.static_shared, k.local_memory_per_thread);
    auto [it, inserted] = symbols.try_emplace(key, static_cast<int64_t>(symbols.size()) + 1);
    if (inserted) {
      trace::KernelSymbol s;
      s.id = it->second;
      s.mangled_name = k.name < names.size() ? names[k.name] : "<unnamed>";
      s.display_name = demangle(s.mangled_name);
      s.arch_vgpr_count = k.registers_per_thread;
      s.group_segment_size = k.static_shared;
      s.private_segment_size = k.local_memory_per_thread;
      writer->add_kernel_symbol(s);
    }
    return it->second;
  }

  void add_kernel(const CudaKernelRecord& k) {
    const int64_t symbol = symbol_for(k);
    trace::Dispatch d{};
    d.id = ++dispatch_id;
    d.start_ns = static_cast<int64_t>(k.start);
    d.end_ns = static_cast<int64_t>(k.end);
    d.queue_id = k.stream;
    d.stream_id = k.stream;
    d.correlation_id = k.correlation;
    trace::DispatchGeometry g;
    for (int i = 0; i < 3; ++i) {
      g.workgroup[i] = static_cast<uint32_t>(k.block[i]);
      g.grid[i] = static_cast<uint64_t>(k.grid[i]) * static_cast<uint64_t>(k.block[i]);  // work-items
    }
    g.group_segment_size = static_cast<uint32_t>(k.static_shared + k.dynamic_shared);
    g.private_segment_size = k.local_memory_per_thread;
    // Formatted directly: a traced program may launch millions of kernels.
    std::string ext = fmt::format(R"({{"correlation_id":{},"context_id":{},"shared_memory_executed":{})", k.correlation,
                                  k.context, k.shared_memory_executed);
    if (k.shmem_limit_config != 0) ext += R"(,"shmem_limit_config":"optin")";
    if (k.launch_type != 0) {
      ext += k.launch_type == 1 ? R"(,"launch_type":"cooperative")" : R"(,"launch_type":"cooperative_multi_device")";
    }
    if (k.graph_id != 0) ext += fmt::format(R"(,"graph_id":{},"graph_node_id":{})", k.graph_id, k.graph_node_id);
    ext += '}';
    writer->add_dispatch(d, g, gpu_agent_id(k.device), symbol, ext);
  }

  // A copy or memset that ran as a node of a graph launch names its graph and node, as a kernel does.
  static nlohmann::json graph_extdata(uint32_t graph_id, uint64_t graph_node_id) {
    nlohmann::json ext = nlohmann::json::object();
    if (graph_id != 0) {
      ext["graph_id"] = graph_id;
      ext["graph_node_id"] = graph_node_id;
    }
    return ext;
  }

  void add_memcpy(const CudaMemcpyRecord& c) {
    trace::MemoryCopy m;
    m.id = ++copy_id;
    m.start_ns = static_cast<int64_t>(c.start);
    m.end_ns = static_cast<int64_t>(c.end);
    m.size = static_cast<int64_t>(c.bytes);
    m.name = trace::cupti_memcpy_name(c.copy_kind);
    m.src_agent_id = trace::cupti_memcpy_from_host(c.copy_kind) ? kHostAgentId : gpu_agent_id(c.device);
    m.dst_agent_id = trace::cupti_memcpy_to_host(c.copy_kind) ? kHostAgentId : gpu_agent_id(c.device);
    m.queue_id = m.stream_id = c.stream;
    m.correlation_id = c.correlation;
    writer->add_memory_copy(m, graph_extdata(c.graph_id, c.graph_node_id));
  }

  void add_memset(const CudaMemsetRecord& s) {
    trace::MemoryCopy m;  // rocpd has no memset table: a copy named MEMORY_SET, value in extdata
    m.id = ++copy_id;
    m.start_ns = static_cast<int64_t>(s.start);
    m.end_ns = static_cast<int64_t>(s.end);
    m.size = static_cast<int64_t>(s.bytes);
    m.name = "MEMORY_SET";
    m.src_agent_id = m.dst_agent_id = gpu_agent_id(s.device);
    m.queue_id = m.stream_id = s.stream;
    m.correlation_id = s.correlation;
    auto ext = graph_extdata(s.graph_id, s.graph_node_id);
    ext["value"] = s.value;
    writer->add_memory_copy(m, ext);
  }
};

CudaTraceWriter::CudaTraceWriter(fs::path path, const CudaTraceData& data) : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->temporary = impl_->path.string() + ".tmp";
  impl_->trace_level = data.trace_level;
  impl_->rank = data.rank;
  std::error_code ec;
  fs::remove(impl_->temporary, ec);
  trace::RocpdProcessInfo process;
  process.uuid = uuid_for(data);
  process.pid = data.pid;
  process.ppid = data.ppid;
  process.hostname = data.hostname;
  process.command = data.command;
  process.start_ns = static_cast<int64_t>(data.start_ns);
  process.end_ns = static_cast<int64_t>(data.end_ns);
  // Renamed into place only when complete: no journal needed.
  impl_->writer = std::make_unique<trace::RocpdWriter>(impl_->temporary, process, false,
                                                       trace::RocpdWriterOptions{.event_rows = false, .journal = false});
  trace::Agent host;
  host.id = kHostAgentId;
  host.type = "CPU";
  host.name = "host";
  host.vendor_name = "CPU";
  impl_->writer->add_agent(host);
}

CudaTraceWriter::~CudaTraceWriter() {
  if (!impl_->writer) return;  // finished
  impl_->writer.reset();       // rolls back
  std::error_code ec;
  fs::remove(impl_->temporary, ec);
}

void CudaTraceWriter::add(const CudaTraceData& batch) {
  for (const auto& dev : batch.devices) impl_->add_device(dev);
  impl_->names.insert(impl_->names.end(), batch.names.begin(), batch.names.end());
  for (const auto& k : batch.kernels) impl_->add_kernel(k);
  for (const auto& c : batch.memcpys) impl_->add_memcpy(c);
  for (const auto& s : batch.memsets) impl_->add_memset(s);
  for (const auto& s : batch.syncs) {
    impl_->writer->add_region(trace::cupti_sync_call(s.type), static_cast<int64_t>(s.start), static_cast<int64_t>(s.end),
                              {{"correlation_id", s.correlation}, {"stream_id", s.stream}});
    if (auto kind = trace::cupti_sync_operation(s.type)) {
      trace::EventOperation op;
      op.kind = *kind;
      op.stream_id = s.stream;
      op.event = static_cast<int64_t>(s.event_sync_id);
      op.correlation_id = s.correlation;
      op.start_ns = static_cast<int64_t>(s.start);
      op.end_ns = static_cast<int64_t>(s.end);
      impl_->writer->add_event_operation(op);
    }
  }
  for (const auto& e : batch.events) {
    trace::EventOperation op;
    op.kind = trace::EventOperationKind::event_record;
    op.stream_id = e.stream;
    op.event = static_cast<int64_t>(e.event_sync_id);
    op.correlation_id = e.correlation;
    impl_->writer->add_event_operation(op);
  }
  for (const auto& st : batch.streams) {
    trace::StreamInfo info;
    info.stream_id = st.stream;
    info.context = st.context;
    info.sync = trace::cupti_stream_sync(st.flag);
    impl_->writer->add_stream_info(info);
  }
  for (const auto& g : batch.graph_dependencies) impl_->writer->add_graph_dependency({0, g.graph, g.from, g.to});
  for (const auto& a : batch.api_calls) {
    impl_->writer->add_region(a.name, static_cast<int64_t>(a.start), static_cast<int64_t>(a.end),
                              {{"correlation_id", a.correlation}, {"thread_id", a.thread}});
  }
}

void CudaTraceWriter::finish(uint64_t dropped_records, uint64_t end_ns) {
  impl_->writer->set_process_end(static_cast<int64_t>(end_ns));
  impl_->writer->add_metadata("rpl_tracer", "cupti");
  if (!impl_->trace_level.empty()) impl_->writer->add_metadata("rpl_trace_level", impl_->trace_level);
  if (!impl_->rank.empty()) impl_->writer->add_metadata("rpl_rank", impl_->rank);
  impl_->writer->add_metadata("rpl_dropped_records", std::to_string(dropped_records));
  impl_->writer->finish();
  impl_->writer.reset();
  fs::rename(impl_->temporary, impl_->path);
}

void write_cuda_trace(const fs::path& path, const CudaTraceData& data) {
  CudaTraceData sorted = data;
  std::stable_sort(sorted.kernels.begin(), sorted.kernels.end(), [](const auto& a, const auto& b) {
    return std::tie(a.start, a.correlation) < std::tie(b.start, b.correlation);
  });
  CudaTraceWriter writer(path, sorted);
  writer.add(sorted);
  writer.finish(data.dropped_records, data.end_ns);
}

}  // namespace rpl::capture
