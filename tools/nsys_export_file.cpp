#include "nsys_export_file.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <rpl/trace/cupti_kinds.hpp>

namespace rpl::tools {
namespace fs = std::filesystem;
namespace {

using Row = std::map<std::string, std::variant<int64_t, std::string>>;

// Inserts rows into a table of the given columns, INTEGER but for those named in text.
class Table {
 public:
  Table(SQLite::Database& db, const std::string& name, const std::vector<std::string>& columns, std::initializer_list<std::string> text = {}) {
    std::string create = "CREATE TABLE " + name + " (", marks;
    for (size_t i = 0; i < columns.size(); ++i) {
      create += (i ? ", " : "") + columns[i] + (std::find(text.begin(), text.end(), columns[i]) != text.end() ? " TEXT" : " INTEGER");
      marks += i ? ", ?" : "?";
    }
    db.exec(create + ")");
    insert_ = std::make_unique<SQLite::Statement>(db, "INSERT INTO " + name + " VALUES (" + marks + ")");
    columns_ = columns;
  }
  // Values by column name; a column not given is NULL.
  void add(const Row& values) {
    insert_->reset();
    insert_->clearBindings();
    for (size_t i = 0; i < columns_.size(); ++i) {
      auto it = values.find(columns_[i]);
      if (it == values.end()) continue;
      if (const auto* n = std::get_if<int64_t>(&it->second)) insert_->bind(static_cast<int>(i) + 1, static_cast<int64_t>(*n));
      else insert_->bind(static_cast<int>(i) + 1, std::get<std::string>(it->second));
    }
    insert_->exec();
  }

 private:
  std::unique_ptr<SQLite::Statement> insert_;
  std::vector<std::string> columns_;
};

std::vector<std::string> kernel_columns(NsysRelease r) {
  std::vector<std::string> c = {"start", "end", "deviceId", "contextId"};
  if (r == NsysRelease::v2025_5) c.push_back("greenContextId");
  for (const char* n : {"streamId", "correlationId", "globalPid", "demangledName", "shortName", "mangledName", "launchType", "cacheConfig",
                        "registersPerThread", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory",
                        "dynamicSharedMemory", "localMemoryPerThread", "localMemoryTotal", "gridId", "sharedMemoryExecuted", "graphNodeId",
                        "sharedMemoryLimitConfig"}) {
    c.push_back(n);
  }
  if (r == NsysRelease::v2025_5) {
    for (const char* n : {"qmdBulkReleaseDone", "qmdPreexitDone", "qmdLastCtaDone", "graphId", "clusterX", "clusterY", "clusterZ",
                          "clusterSchedulingPolicy", "maxPotentialClusterSize", "maxActiveClusters"}) {
      c.push_back(n);
    }
  }
  return c;
}

// The columns every activity table of a device begins with.
std::vector<std::string> activity_columns(NsysRelease r, std::initializer_list<const char*> more, bool times = true) {
  std::vector<std::string> c;
  if (times) c = {"start", "end"};
  c.insert(c.end(), {"deviceId", "contextId"});
  if (r == NsysRelease::v2025_5) c.push_back("greenContextId");
  c.insert(c.end(), {"streamId", "correlationId", "globalPid"});
  c.insert(c.end(), more.begin(), more.end());
  return c;
}

// syncType: CUPTI's numbering from schema 3.24; before it nsys's own, as real exports show it
// (context 1, event 2, stream 3). No export seen had a stream wait: written as 0 there, the reader
// going by its call.
int sync_type(trace::EventOperationKind k, NsysRelease r) {
  if (r == NsysRelease::v2022_4) {
    switch (k) {
      case trace::EventOperationKind::device_synchronize: return 1;
      case trace::EventOperationKind::event_synchronize: return 2;
      case trace::EventOperationKind::stream_synchronize: return 3;
      default: return 0;
    }
  }
  for (uint32_t t = 1; t <= 4; ++t) {
    if (trace::cupti_sync_operation(t) == k) return static_cast<int>(t);
  }
  return 0;
}

// The runtime call of an event operation, with nsys's version suffix.
std::string call_of(trace::EventOperationKind k) {
  switch (k) {
    case trace::EventOperationKind::event_record: return "cudaEventRecord_v3020";
    case trace::EventOperationKind::stream_wait_event: return "cudaStreamWaitEvent_v3020";
    case trace::EventOperationKind::event_synchronize: return "cudaEventSynchronize_v3020";
    case trace::EventOperationKind::stream_synchronize: return "cudaStreamSynchronize_v3020";
    case trace::EventOperationKind::device_synchronize: return "cudaDeviceSynchronize_v3020";
  }
  return "";
}

int copy_kind(const std::string& name) {
  for (uint32_t k = 1; k <= 10; ++k) {
    if (trace::cupti_memcpy_name(k) == name) return static_cast<int>(k);
  }
  return 0;
}

}  // namespace

void write_nsys_export(const trace::Trace& trace, const fs::path& file, int64_t pid, NsysRelease release) {
  fs::remove(file);
  SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  SQLite::Transaction tx(db);
  const bool recent = release == NsysRelease::v2025_5;
  const int64_t global_pid = (int64_t{1} << 56) | (pid << 24);
  {
    Table meta(db, recent ? "META_DATA_EXPORT" : "EXPORT_META_DATA", {"name", "value"}, {"name", "value"});
    meta.add({{"name", std::string("EXPORT_SCHEMA_VERSION")}, {"value", std::string(recent ? "3.24.0" : "3.0.0")}});
  }
  Table strings(db, "StringIds", {"id", "value"}, {"value"});
  std::map<std::string, int64_t> string_ids;
  auto string_id = [&](const std::string& s) {
    auto [it, added] = string_ids.try_emplace(s, static_cast<int64_t>(string_ids.size()) + 1);
    if (added) strings.add({{"id", it->second}, {"value", s}});
    return it->second;
  };

  Table gpus(db, "TARGET_INFO_GPU",
             {"vmId", "id", "name", "busLocation", "isDiscrete", "l2CacheSize", "totalMemory", "memoryBandwidth", "clockRate", "smCount", "pwGpuId",
              "uuid", "luid", "chipName", "cuDevice", "ctxswDevPath", "ctrlDevPath", "revision", "nodeMask", "constantMemory", "maxIPC",
              "maxRegistersPerBlock", "maxShmemPerBlock", "maxShmemPerBlockOptin", "maxShmemPerSm", "maxRegistersPerSm", "threadsPerWarp",
              "asyncEngines", "maxWarpsPerSm", "maxBlocksPerSm", "maxThreadsPerBlock", "maxBlockDimX", "maxBlockDimY", "maxBlockDimZ",
              "maxGridDimX", "maxGridDimY", "maxGridDimZ", "computeMajor", "computeMinor", "smMajor", "smMinor"},
             {"name", "busLocation", "uuid", "chipName", "ctxswDevPath", "ctrlDevPath"});
  Table cuda_devices(db, "TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId", "pid", "uuid", "numMultiprocessors"}, {"uuid"});
  for (const auto& a : trace.agents) {
    if (a.type != "GPU") continue;
    const int64_t device = a.id - 1;
    Row row = {{"id", device}, {"name", a.product_name}, {"uuid", fmt::format("GPU-{}", device)}};
    if (a.name.starts_with("sm_") && a.name.size() >= 5) {
      row["computeMajor"] = static_cast<int64_t>(std::stoi(a.name.substr(3, a.name.size() - 4)));
      row["computeMinor"] = static_cast<int64_t>(a.name.back() - '0');
    }
    if (a.compute_units) row["smCount"] = static_cast<int64_t>(*a.compute_units);
    row["threadsPerWarp"] = static_cast<int64_t>(a.wave_size.value_or(32));
    if (a.max_clock_mhz) row["clockRate"] = static_cast<int64_t>(*a.max_clock_mhz * 1e6);
    if (a.dram_bytes_per_s) row["memoryBandwidth"] = static_cast<int64_t>(*a.dram_bytes_per_s);
    gpus.add(row);
    cuda_devices.add({{"gpuId", device}, {"cudaId", device}, {"pid", pid}, {"uuid", fmt::format("GPU-{}", device)}});
  }

  Table kernels(db, "CUPTI_ACTIVITY_KIND_KERNEL", kernel_columns(release));
  for (const auto& d : trace.dispatches) {
    const auto& s = trace.symbols[static_cast<size_t>(d.symbol)];
    const auto& g = trace.geometry(d);
    const int64_t name = string_id(s.name());
    Row row = {
        {"start", d.start_ns}, {"end", d.end_ns}, {"deviceId", d.agent >= 0 ? trace.agents[static_cast<size_t>(d.agent)].id - 1 : 0},
        {"contextId", int64_t{1}}, {"streamId", d.stream_id}, {"correlationId", d.correlation_id}, {"globalPid", global_pid},
        {"demangledName", name}, {"shortName", name}, {"mangledName", string_id(s.mangled_name)}, {"launchType", int64_t{0}},
        {"cacheConfig", int64_t{0}}, {"registersPerThread", s.arch_vgpr_count}, {"staticSharedMemory", s.group_segment_size},
        {"dynamicSharedMemory", std::max<int64_t>(0, int64_t{g.group_segment_size} - s.group_segment_size)},
        {"localMemoryPerThread", int64_t{g.private_segment_size}}, {"localMemoryTotal", int64_t{0}}, {"gridId", d.id},
        {"sharedMemoryExecuted", int64_t{0}}, {"sharedMemoryLimitConfig", int64_t{0}}};
    const char* grid[] = {"gridX", "gridY", "gridZ"};
    const char* block[] = {"blockX", "blockY", "blockZ"};
    for (int k = 0; k < 3; ++k) {
      row[block[k]] = int64_t{g.workgroup[k]};
      row[grid[k]] = static_cast<int64_t>(g.grid[k] / std::max<uint32_t>(1, g.workgroup[k]));
    }
    kernels.add(row);
  }

  Table copies(db, "CUPTI_ACTIVITY_KIND_MEMCPY",
               recent ? activity_columns(release, {"bytes", "copyKind", "srcKind", "dstKind", "graphNodeId"})
                      : activity_columns(release, {"bytes", "copyKind", "deprecatedSrcId", "srcKind", "dstKind", "srcDeviceId", "srcContextId",
                                                   "dstDeviceId", "dstContextId", "migrationCause", "graphNodeId", "virtualAddress"}));
  Table memsets(db, "CUPTI_ACTIVITY_KIND_MEMSET", activity_columns(release, {"value", "bytes", "graphNodeId", "memKind"}));
  for (const auto& c : trace.memory_copies) {
    const int64_t device = std::max<int64_t>(c.src_agent_id, c.dst_agent_id) - 1;
    Row row = {
        {"start", c.start_ns}, {"end", c.end_ns}, {"deviceId", std::max<int64_t>(0, device)}, {"contextId", int64_t{1}},
        {"streamId", c.stream_id}, {"correlationId", c.correlation_id}, {"globalPid", global_pid}, {"bytes", c.size}};
    if (c.name == "MEMORY_SET") {
      row["value"] = int64_t{0};
      memsets.add(row);
    } else {
      row["copyKind"] = static_cast<int64_t>(copy_kind(c.name));
      copies.add(row);
    }
  }

  auto event_columns = [&](std::initializer_list<const char*> more, bool times) {
    auto c = activity_columns(release, more, times);
    if (recent) c.push_back("eventSyncId");
    return c;
  };
  Table events(db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", event_columns({"eventId"}, false));
  Table syncs(db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
              recent ? event_columns({"deprecatedSyncType", "syncType", "eventId"}, true) : event_columns({"syncType", "eventId"}, true));
  Table runtime(db, "CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue", "callchainId"});
  const int64_t global_tid = global_pid | pid;  // the main thread
  for (const auto& d : trace.dispatches) {
    runtime.add({{"start", d.start_ns}, {"end", d.start_ns}, {"eventClass", int64_t{0}}, {"globalTid", global_tid}, {"correlationId", d.correlation_id},
                 {"nameId", string_id("cudaLaunchKernel_v7000")}, {"returnValue", int64_t{0}}});
  }
  for (const auto& op : trace.event_operations) {
    Row row = {
        {"deviceId", int64_t{0}}, {"contextId", int64_t{1}}, {"streamId", op.stream_id}, {"correlationId", op.correlation_id},
        {"globalPid", global_pid}, {"eventId", op.event}};
    if (recent) row["eventSyncId"] = op.event;
    runtime.add({{"start", op.start_ns}, {"end", op.end_ns}, {"eventClass", int64_t{0}}, {"globalTid", global_tid}, {"correlationId", op.correlation_id},
                 {"nameId", string_id(call_of(op.kind))}, {"returnValue", int64_t{0}}});
    if (op.kind == trace::EventOperationKind::event_record) {
      events.add(row);
    } else {
      row["start"] = op.start_ns;
      row["end"] = op.end_ns;
      row["syncType"] = static_cast<int64_t>(sync_type(op.kind, release));
      syncs.add(row);
    }
  }

  Table streams(db, "TARGET_INFO_CUDA_STREAM", {"streamId", "hwId", "vmId", "processId", "contextId", "priority", "flag"});
  for (const auto& s : trace.streams) {
    int64_t flag = 0;
    for (uint32_t f = 1; f <= 3; ++f) {
      if (trace::cupti_stream_sync(f) == s.sync) flag = f;
    }
    streams.add({{"streamId", s.stream_id}, {"hwId", int64_t{0}}, {"vmId", int64_t{0}}, {"processId", pid}, {"contextId", s.context},
                 {"priority", int64_t{0}}, {"flag", flag}});
  }
  tx.commit();
}

}  // namespace rpl::tools
