// Nsight Systems exports: CUPTI's activity records, one table per kind (CUPTI_ACTIVITY_KIND_KERNEL,
// _MEMCPY, _MEMSET, _SYNCHRONIZATION, _CUDA_EVENT, _RUNTIME), names as ids into StringIds, the GPUs
// in TARGET_INFO_GPU and the streams in TARGET_INFO_CUDA_STREAM. Columns are found by name: each
// release adds some (2022.4's kernel table has 27 columns, 2025.5's 38; formats.md). A row names its
// process by globalPid, whose bits 24-47 are the pid (a thread's globalTid holds it in the same bits).
// Timestamps are nanoseconds from the start of the capture session.
// Facts seen in real exports (nsys 2022.2 to 2025.5, A100, RTX 3060 and 3090): before export schema
// 3.24, syncType is nsys's own numbering (cudaDeviceSynchronize and cuCtxSynchronize 1,
// cudaEventSynchronize 2, cudaStreamSynchronize 3), though ENUM_CUPTI_SYNC_TYPE lists CUPTI's; 3.24
// (nsys 2025.5) writes CUPTI's values and keeps the old ones in deprecatedSyncType. copyKind 11 to
// 13 are unified memory migrations (no stream, no correlation): not stream work.
#include <rpl/trace/nsys_reader.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/trace/cupti_kinds.hpp>

#include "geometry_table.hpp"
#include "host_call_names.hpp"
#include "rocpd_tables.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
namespace {

using detail::column_or;
using detail::columns_of;
using Columns = std::set<std::string>;

int64_t pid_of(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }

// rocm-perf's CUPTI tracer numbers a GPU agent device + 1, the host 0: an export reads as its trace does.
constexpr int64_t kHostAgentId = 0;
int64_t gpu_agent_id(int64_t device) { return device + 1; }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys names a runtime call with its API version.
std::string call_name(std::string name) {
  const auto v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      std::all_of(name.begin() + static_cast<long>(v) + 2, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    name.resize(v);
  }
  return name;
}

struct Gpu {
  std::string name;
  std::optional<int> major, minor, sm_count, warp_size;
  std::optional<double> clock_mhz, bandwidth;
};

// An event operation before its recording is known: exports before eventSyncId name only the event.
struct PendingOperation {
  EventOperation op;
  int64_t pid = 0, event_id = 0;
  bool has_sync_id = false;
};

class NsysReader {
 public:
  NsysReader(Trace& trace, const fs::path& file, const ReadOptions& options)
      : trace_(trace), file_(file), options_(options), db_(file.string(), SQLite::OPEN_READONLY) {
    SQLite::Statement st(db_, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
    while (st.executeStep()) tables_.insert(st.getColumn(0).getString());
  }

  void read() {
    if (trace_.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", file_.string());
    source_ = static_cast<int16_t>(trace_.sources.size());
    Source s;
    s.path = file_.string();
    trace_.sources.push_back(std::move(s));
    read_strings();
    read_gpus();
    read_kernels();
    read_copies();
    read_memsets();
    read_event_operations();
    read_streams();
    if (options_.host_calls) read_runtime_calls();
    auto& guids = trace_.sources[static_cast<size_t>(source_)].guids;
    for (int64_t pid : pids_) guids.push_back(std::to_string(pid));
  }

 private:
  bool has(const std::string& table) const { return tables_.count(table) != 0; }

  Columns columns(const std::string& table, std::initializer_list<const char*> needed) {
    auto cols = columns_of(db_, table);
    for (const char* c : needed) {
      if (!cols.count(c)) {
        fail(Errc::bad_input, "{}: table {} has no column \"{}\"; not an Nsight Systems export this reader knows", file_.string(), table, c);
      }
    }
    return cols;
  }

  // The process's guid, its pid; rows of one process come in runs, so the last one is kept.
  const std::string& guid_of(int64_t global_pid) {
    const int64_t pid = pid_of(global_pid);
    if (pid != last_pid_ || last_guid_.empty()) {
      pids_.insert(pid);
      last_pid_ = pid;
      last_guid_ = std::to_string(pid);
    }
    return last_guid_;
  }

  const std::string& text_of(int64_t id) {  // a StringIds value, empty where unknown
    static const std::string none;
    auto it = strings_.find(id);
    return it == strings_.end() ? none : it->second;
  }

  void read_strings() {
    if (!has("StringIds")) return;
    SQLite::Statement st(db_, "SELECT id, value FROM StringIds");
    while (st.executeStep()) strings_.emplace(st.getColumn(0).getInt64(), detail::text_or_empty(st.getColumn(1)));
  }

  void read_gpus() {
    if (has("TARGET_INFO_GPU")) {
      const auto cols = columns("TARGET_INFO_GPU", {"id"});
      SQLite::Statement st(db_, "SELECT id, " + column_or(cols, "name", "''") + ", " + column_or(cols, "computeMajor", "NULL") + ", " +
                                    column_or(cols, "computeMinor", "NULL") + ", " + column_or(cols, "smCount", "NULL") + ", " +
                                    column_or(cols, "threadsPerWarp", "NULL") + ", " + column_or(cols, "clockRate", "NULL") + ", " +
                                    column_or(cols, "memoryBandwidth", "NULL") + " FROM TARGET_INFO_GPU");
      auto optional_int = [&](int c) { return st.getColumn(c).isNull() ? std::nullopt : std::optional<int>(st.getColumn(c).getInt()); };
      while (st.executeStep()) {
        Gpu g;
        g.name = detail::text_or_empty(st.getColumn(1));
        g.major = optional_int(2);
        g.minor = optional_int(3);
        g.sm_count = optional_int(4);
        g.warp_size = optional_int(5);
        if (!st.getColumn(6).isNull() && st.getColumn(6).getDouble() > 0) g.clock_mhz = st.getColumn(6).getDouble() / 1e6;  // Hz
        if (!st.getColumn(7).isNull() && st.getColumn(7).getDouble() > 0) g.bandwidth = st.getColumn(7).getDouble();
        gpus_[st.getColumn(0).getInt64()] = std::move(g);
      }
    }
    // A process's CUDA device numbers are its own: TARGET_INFO_CUDA_DEVICE maps them to the GPUs.
    if (has("TARGET_INFO_CUDA_DEVICE")) {
      const auto cols = columns("TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId"});
      SQLite::Statement st(db_, "SELECT gpuId, cudaId, " + column_or(cols, "pid", "0") + " FROM TARGET_INFO_CUDA_DEVICE");
      while (st.executeStep()) cuda_devices_[{st.getColumn(2).getInt64(), st.getColumn(1).getInt64()}] = st.getColumn(0).getInt64();
    }
  }

  int16_t agent_of(int64_t global_pid, int64_t device) {
    const int64_t pid = pid_of(global_pid);
    if (auto it = agents_.find({pid, device}); it != agents_.end()) return it->second;
    Agent a;
    a.source = source_;
    a.guid = guid_of(global_pid);
    a.id = gpu_agent_id(device);
    a.type = "GPU";
    a.vendor_name = "NVIDIA";
    const auto mapped = cuda_devices_.find({pid, device});
    const auto gpu = gpus_.find(mapped != cuda_devices_.end() ? mapped->second : device);
    if (gpu != gpus_.end()) {
      const Gpu& g = gpu->second;
      if (g.major && g.minor) a.name = fmt::format("sm_{}{}", *g.major, *g.minor);
      a.product_name = g.name;
      a.compute_units = g.sm_count;
      a.wave_size = g.warp_size.value_or(32);
      a.max_clock_mhz = g.clock_mhz;
      a.dram_bytes_per_s = g.bandwidth;
    } else {
      trace_.warnings.push_back(fmt::format("{}: CUDA device {} of process {} is in no TARGET_INFO_GPU row: {}",
                                            file_.string(), device, pid, kGpuNotKnown));
    }
    if (trace_.agents.size() >= INT16_MAX) fail(Errc::bad_input, "{}: more than {} agents", file_.string(), INT16_MAX);
    trace_.agents.push_back(std::move(a));
    return agents_[{pid, device}] = static_cast<int16_t>(trace_.agents.size() - 1);
  }

  int32_t symbol_of(int64_t global_pid, int64_t mangled, int64_t demangled, int64_t registers, int64_t static_shared, int64_t local,
                    bool registers_known) {
    const auto key = std::make_tuple(pid_of(global_pid), mangled, demangled, registers, static_shared, local);
    auto [it, added] = symbols_.try_emplace(key, static_cast<int32_t>(trace_.symbols.size()));
    if (added) {
      KernelSymbol k;
      k.source = source_;
      k.guid = guid_of(global_pid);
      k.id = static_cast<int64_t>(symbols_.size());
      k.mangled_name = text_of(mangled);
      k.display_name = text_of(demangled);
      if (k.mangled_name.empty()) k.mangled_name = k.display_name;
      if (k.mangled_name.empty()) k.mangled_name = fmt::format("<kernel of string id {}>", demangled);
      k.arch_vgpr_count = registers;
      k.group_segment_size = static_shared;
      k.private_segment_size = local;
      k.registers_known = registers_known;
      trace_.symbols.push_back(std::move(k));
    }
    return it->second;
  }

  void read_kernels() {
    const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
    if (!has(table)) {
      trace_.warnings.push_back(fmt::format("{}: an Nsight Systems export without CUDA kernels (was the program profiled with --trace=cuda?)", file_.string()));
      return;
    }
    const auto cols = columns(table, {"start", "end", "deviceId", "streamId", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"});
    if (!cols.count("demangledName") && !cols.count("shortName") && !cols.count("mangledName")) {
      fail(Errc::bad_input, "{}: table {} names no kernel (no demangledName, shortName or mangledName column)", file_.string(), table);
    }
    const bool registers_known = cols.count("registersPerThread") != 0;
    const std::string demangled = cols.count("demangledName") ? "demangledName" : column_or(cols, "shortName", "0");
    SQLite::Statement st(db_, "SELECT start, end, deviceId, streamId, " + column_or(cols, "correlationId", "0") + ", " +
                                  column_or(cols, "globalPid", "0") + ", " + column_or(cols, "mangledName", "0") + ", " + demangled +
                                  ", gridX, gridY, gridZ, blockX, blockY, blockZ, " + column_or(cols, "registersPerThread", "0") + ", " +
                                  column_or(cols, "staticSharedMemory", "0") + ", " + column_or(cols, "dynamicSharedMemory", "0") + ", " +
                                  column_or(cols, "localMemoryPerThread", "0") + " FROM " + table);
    auto index = detail::index_of(trace_.geometries);
    detail::GeometryTable geometries(trace_.geometries, &index);
    int64_t next_id = 1;
    while (st.executeStep()) {
      auto i64 = [&](int c) { return st.getColumn(c).getInt64(); };
      const int64_t global_pid = i64(5), static_shared = i64(15);
      Dispatch d{};
      d.id = next_id++;
      d.start_ns = i64(0);
      d.end_ns = i64(1);
      d.agent = agent_of(global_pid, i64(2));
      d.queue_id = d.stream_id = i64(3);
      d.correlation_id = i64(4);
      d.source = source_;
      d.symbol = symbol_of(global_pid, i64(6), i64(7), i64(14), static_shared, i64(17), registers_known);
      DispatchGeometry g;
      for (int k = 0; k < 3; ++k) {
        g.workgroup[k] = static_cast<uint32_t>(i64(11 + k));
        g.grid[k] = static_cast<uint64_t>(i64(8 + k)) * g.workgroup[k];  // blocks, as CUDA counts them; work-items, as the model does
      }
      g.group_segment_size = static_cast<uint32_t>(static_shared + i64(16));
      g.private_segment_size = static_cast<uint32_t>(i64(17));
      d.geometry = geometries.intern(g);
      trace_.dispatches.push_back(d);
    }
    if (!registers_known) {
      trace_.warnings.push_back(fmt::format("{}: kernels without register counts: occupancy is not computed", file_.string()));
    }
  }

  MemoryCopy copy_row(SQLite::Statement& st) {
    MemoryCopy c;
    c.source = source_;
    c.guid = guid_of(st.getColumn(5).getInt64());
    c.id = static_cast<int64_t>(trace_.memory_copies.size()) + 1;
    c.start_ns = st.getColumn(0).getInt64();
    c.end_ns = st.getColumn(1).getInt64();
    c.queue_id = c.stream_id = st.getColumn(3).getInt64();
    c.correlation_id = st.getColumn(4).getInt64();
    c.size = st.getColumn(6).getInt64();
    c.src_agent_id = c.dst_agent_id = gpu_agent_id(st.getColumn(2).getInt64());
    return c;
  }

  std::string copy_select(const std::string& table, const Columns& cols, const std::string& more) {
    return "SELECT start, end, deviceId, streamId, " + column_or(cols, "correlationId", "0") + ", " + column_or(cols, "globalPid", "0") +
           ", bytes" + more + " FROM " + table;
  }

  void read_copies() {
    const std::string table = "CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!has(table)) return;
    const auto cols = columns(table, {"start", "end", "deviceId", "streamId", "bytes", "copyKind"});
    SQLite::Statement st(db_, copy_select(table, cols, ", copyKind"));
    size_t migrations = 0;
    while (st.executeStep()) {
      const auto kind = static_cast<uint32_t>(st.getColumn(7).getInt64());
      if (kind >= 11 && kind <= 13) {  // unified memory: the driver moving pages, on no stream
        ++migrations;
        continue;
      }
      MemoryCopy c = copy_row(st);
      c.name = cupti_memcpy_name(kind);
      if (cupti_memcpy_from_host(kind)) c.src_agent_id = kHostAgentId;
      if (cupti_memcpy_to_host(kind)) c.dst_agent_id = kHostAgentId;
      trace_.memory_copies.push_back(std::move(c));
    }
    if (migrations > 0) {
      trace_.warnings.push_back(fmt::format("{}: {} unified memory migrations are page moves on no stream: not in the dependency graph",
                                            file_.string(), migrations));
    }
  }

  void read_memsets() {
    const std::string table = "CUPTI_ACTIVITY_KIND_MEMSET";
    if (!has(table)) return;
    const auto cols = columns(table, {"start", "end", "deviceId", "streamId", "bytes"});
    SQLite::Statement st(db_, copy_select(table, cols, ""));
    while (st.executeStep()) {
      MemoryCopy c = copy_row(st);
      c.name = "MEMORY_SET";  // as the tracer names a memset
      trace_.memory_copies.push_back(std::move(c));
    }
  }

  // The dependency of a SYNCHRONIZATION row: by CUPTI's numbering from schema 3.24 on; before it, by
  // the runtime or driver call that made it, else nsys's old numbering (1 context, 2 event, 3 stream).
  static std::optional<EventOperationKind> sync_kind(int64_t type, bool cupti_numbering, const std::string& call) {
    if (cupti_numbering) return cupti_sync_operation(static_cast<uint32_t>(type));
    const std::string name = call_name(call);
    if (name == "cudaStreamWaitEvent" || name == "cuStreamWaitEvent") return EventOperationKind::stream_wait_event;
    if (name == "cudaEventSynchronize" || name == "cuEventSynchronize") return EventOperationKind::event_synchronize;
    if (name == "cudaStreamSynchronize" || name == "cuStreamSynchronize") return EventOperationKind::stream_synchronize;
    if (name == "cudaDeviceSynchronize" || name == "cuCtxSynchronize") return EventOperationKind::device_synchronize;
    switch (type) {
      case 1: return EventOperationKind::device_synchronize;
      case 2: return EventOperationKind::event_synchronize;
      case 3: return EventOperationKind::stream_synchronize;
      default: return std::nullopt;
    }
  }

  // The name id of the runtime or driver call of each synchronization, by (globalTid >> 24, the
  // process's bits, and correlation id): one pass over the calls, the synchronizations' ids looked
  // up in a set (a lookup per synchronization in the unindexed call table would scan it each time).
  std::map<std::pair<int64_t, int64_t>, int64_t> sync_calls() {
    std::map<std::pair<int64_t, int64_t>, int64_t> out;
    SQLite::Statement st(db_, "SELECT globalTid >> 24, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IN "
                              "(SELECT correlationId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)");
    while (st.executeStep()) out.emplace(std::pair{st.getColumn(0).getInt64(), st.getColumn(1).getInt64()}, st.getColumn(2).getInt64());
    return out;
  }

  // cudaEventRecord (CUDA_EVENT) and the waits and synchronizations (SYNCHRONIZATION). A wait names
  // the recording it waited for by eventSyncId; an export without it names the event only, and a
  // wait then waits for the event's latest recording before it in the process's call order.
  void read_event_operations() {
    std::vector<PendingOperation> ops;
    const bool records = has("CUPTI_ACTIVITY_KIND_CUDA_EVENT"), waits = has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    if (records) {
      const std::string table = "CUPTI_ACTIVITY_KIND_CUDA_EVENT";
      const auto cols = columns(table, {"streamId", "eventId"});
      SQLite::Statement st(db_, "SELECT streamId, " + column_or(cols, "correlationId", "0") + ", " + column_or(cols, "globalPid", "0") +
                                    ", eventId, " + column_or(cols, "eventSyncId", "NULL") + " FROM " + table);
      while (st.executeStep()) {
        PendingOperation p;
        p.op.kind = EventOperationKind::event_record;
        p.op.stream_id = st.getColumn(0).getInt64();
        p.op.correlation_id = st.getColumn(1).getInt64();
        pending(p, st.getColumn(2).getInt64(), st.getColumn(3).getInt64(), st.getColumn(4));
        ops.push_back(std::move(p));
      }
    }
    size_t unknown = 0;
    if (waits) {
      const std::string table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
      const auto cols = columns(table, {"start", "end", "streamId", "syncType"});
      const bool cupti_numbering = cols.count("deprecatedSyncType") != 0;
      // Before 3.24, the call of the same process and correlation id says what kind of wait it is.
      const bool by_call = !cupti_numbering && has("CUPTI_ACTIVITY_KIND_RUNTIME") && cols.count("correlationId") && cols.count("globalPid");
      const auto calls = by_call ? sync_calls() : std::map<std::pair<int64_t, int64_t>, int64_t>{};
      SQLite::Statement st(db_, "SELECT start, end, streamId, " + column_or(cols, "correlationId", "0") + ", " + column_or(cols, "globalPid", "0") +
                                    ", syncType, " + column_or(cols, "eventId", "0") + ", " + column_or(cols, "eventSyncId", "NULL") + " FROM " + table);
      while (st.executeStep()) {
        const auto call = calls.find({st.getColumn(4).getInt64() >> 24, st.getColumn(3).getInt64()});
        const auto kind = sync_kind(st.getColumn(5).getInt64(), cupti_numbering, call != calls.end() ? text_of(call->second) : std::string());
        if (!kind) {
          ++unknown;
          continue;
        }
        PendingOperation p;
        p.op.kind = *kind;
        p.op.start_ns = st.getColumn(0).getInt64();
        p.op.end_ns = st.getColumn(1).getInt64();
        p.op.stream_id = st.getColumn(2).getInt64();
        p.op.correlation_id = st.getColumn(3).getInt64();
        pending(p, st.getColumn(4).getInt64(), st.getColumn(6).getInt64(), st.getColumn(7));
        ops.push_back(std::move(p));
      }
    }
    if (unknown > 0) {
      trace_.warnings.push_back(fmt::format("{}: {} synchronizations of a kind this reader does not know; they add no dependency", file_.string(), unknown));
    }
    if (!records && !waits) {
      trace_.warnings.push_back(fmt::format("{}: no CUDA event or synchronization records: the dependency graph has stream order and "
                                            "timestamps only", file_.string()));
    }
    resolve_recordings(ops);
    for (auto& p : ops) trace_.event_operations.push_back(std::move(p.op));
  }

  void pending(PendingOperation& p, int64_t global_pid, int64_t event_id, const SQLite::Column& sync_id) {
    p.op.source = source_;
    p.op.guid = guid_of(global_pid);
    p.pid = pid_of(global_pid);
    p.event_id = event_id;
    p.has_sync_id = !sync_id.isNull();
    if (p.has_sync_id) p.op.event = sync_id.getInt64();
  }

  static void resolve_recordings(std::vector<PendingOperation>& ops) {
    std::vector<PendingOperation*> unresolved;
    for (auto& p : ops) {
      if (!p.has_sync_id) unresolved.push_back(&p);
    }
    std::stable_sort(unresolved.begin(), unresolved.end(), [](const PendingOperation* a, const PendingOperation* b) {
      return std::tie(a->pid, a->op.correlation_id) < std::tie(b->pid, b->op.correlation_id);
    });
    std::map<std::pair<int64_t, int64_t>, int64_t> latest;  // (pid, event) -> its recording
    int64_t recordings = 0;
    for (auto* p : unresolved) {
      const std::pair<int64_t, int64_t> key{p->pid, p->event_id};
      if (p->op.kind == EventOperationKind::event_record) {
        p->op.event = latest[key] = ++recordings;
      } else if (p->op.kind == EventOperationKind::stream_wait_event || p->op.kind == EventOperationKind::event_synchronize) {
        const auto it = latest.find(key);
        p->op.event = it != latest.end() ? it->second : ++recordings;  // never recorded: a recording of its own
      }
    }
  }

  void read_streams() {
    const std::string table = "TARGET_INFO_CUDA_STREAM";
    if (!has(table)) return;
    const auto cols = columns(table, {"streamId", "flag"});
    SQLite::Statement st(db_, "SELECT streamId, " + column_or(cols, "processId", "0") + ", " + column_or(cols, "contextId", "0") +
                                  ", flag FROM " + table);
    while (st.executeStep()) {
      StreamInfo s;
      s.source = source_;
      s.guid = std::to_string(st.getColumn(1).getInt64());
      s.stream_id = st.getColumn(0).getInt64();
      s.context = st.getColumn(2).getInt64();
      s.sync = cupti_stream_sync(static_cast<uint32_t>(st.getColumn(3).getInt64()));
      trace_.streams.push_back(std::move(s));
    }
  }

  void read_runtime_calls() {
    const std::string table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    if (!has(table)) return;
    const auto cols = columns(table, {"start", "end", "nameId"});
    detail::HostCallNames names(trace_);
    SQLite::Statement st(db_, "SELECT start, end, " + column_or(cols, "globalTid", "0") + ", nameId FROM " + table);
    while (st.executeStep()) {
      const int64_t tid = st.getColumn(2).getInt64();
      const uint32_t name = names.intern(call_name(text_of(st.getColumn(3).getInt64())));
      trace_.host_calls.push_back({source_, guid_of(tid), tid & 0xFFFFFF, st.getColumn(0).getInt64(), st.getColumn(1).getInt64(), name});
    }
  }

  Trace& trace_;
  const fs::path& file_;
  const ReadOptions& options_;
  SQLite::Database db_;
  std::set<std::string> tables_;
  int16_t source_ = 0;
  std::unordered_map<int64_t, std::string> strings_;
  std::map<int64_t, Gpu> gpus_;
  std::map<std::pair<int64_t, int64_t>, int64_t> cuda_devices_;  // (pid, CUDA device) -> TARGET_INFO_GPU id
  std::map<std::pair<int64_t, int64_t>, int16_t> agents_;        // (pid, CUDA device) -> agent
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>, int32_t> symbols_;  // (pid, names, resources)
  std::set<int64_t> pids_;
  int64_t last_pid_ = -1;
  std::string last_guid_;
};

}  // namespace

void read_nsys_into(Trace& trace, const fs::path& file, const ReadOptions& options) {
  try {
    NsysReader(trace, file, options).read();
  } catch (const SQLite::Exception& e) {
    fail(Errc::bad_input, "{}: cannot read this Nsight Systems export: {}", file.string(), e.what());
  }
}

}  // namespace rpl::trace
