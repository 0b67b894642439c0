// rocprofv3 --output-format json: one document per run, {"rocprofiler-sdk-tool": [a process each]}.
// Field names are those rocprofiler-sdk serializes (its rocprofv3-schema.json, and the save()
// functions of its cereal headers): agents carry id.handle, type (1 CPU, 2 GPU), name (gfx942),
// node_id, cu_count, simd_per_cu, wave_front_size, max_waves_per_cu, max_engine_clk_fcompute,
// lds_size_in_kb; kernel_symbols kernel_id, kernel_name (mangled), demangled_kernel_name,
// group/private_segment_size and, from ROCm 6.4, arch_vgpr_count, accum_vgpr_count, sgpr_count;
// buffer_records.kernel_dispatch start/end_timestamp (ns), correlation_id.internal, stream_id.handle
// (ROCm 7; before, the queue stands for the stream) and dispatch_info
// (agent_id.handle, queue_id.handle, kernel_id, dispatch_id, segment sizes, workgroup_size and
// grid_size {x, y, z} in work-items); buffer_records.memory_copy the copies, their direction an
// operation whose name strings.buffer_records lists; buffer_records.hip_api, hsa_api and
// marker_api the API calls (kind, operation, correlation_id, start/end_timestamp, thread_id: no
// arguments), each named by its kind's operations in strings.buffer_records.
#include <rpl/trace/amd_profiler_files.hpp>

#include <array>
#include <map>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "geometry_table.hpp"
#include "host_call_names.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

int64_t number(const json& j, const char* key, int64_t fallback = 0) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_object()) {  // {"handle": N}, {"internal": N, ...}
    for (const char* inner : {"handle", "internal"}) {
      if (it->contains(inner) && (*it)[inner].is_number()) return (*it)[inner].get<int64_t>();
    }
    return fallback;
  }
  return it->is_number() ? it->get<int64_t>() : fallback;
}

std::string text(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& member(const json& j, const char* key) {
  static const json empty = json::object();
  auto it = j.find(key);
  return it != j.end() ? *it : empty;
}

std::array<uint64_t, 3> xyz(const json& j) {
  return {static_cast<uint64_t>(number(j, "x", 1)), static_cast<uint64_t>(number(j, "y", 1)), static_cast<uint64_t>(number(j, "z", 1))};
}

// The names of a buffer record kind's operations (strings.buffer_records[{kind, operations}]).
std::vector<std::string> operation_names(const json& process, const std::string& kind) {
  for (const auto& r : member(member(process, "strings"), "buffer_records")) {
    if (r.is_object() && text(r, "kind") == kind && r.contains("operations") && r["operations"].is_array()) {
      std::vector<std::string> out;
      for (const auto& o : r["operations"]) out.push_back(o.is_string() ? o.get<std::string>() : std::string());
      return out;
    }
  }
  return {};
}

// The names of the API kinds of rocprofiler_buffer_tracing_kind_t, which key strings.buffer_records:
// the values 1-9 are the same in every release from ROCm 6.2 on (later kinds moved between releases).
const char* api_kind_name(int64_t kind) {
  static constexpr std::array<const char*, 10> kNames = {
      nullptr, "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API",
      "HIP_RUNTIME_API", "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API"};
  return kind > 0 && kind < static_cast<int64_t>(kNames.size()) ? kNames[static_cast<size_t>(kind)] : nullptr;
}

// A process's hip_api, hsa_api and marker_api records: hipDeviceSynchronize as a host wait (the
// records hold no arguments: no event or stream is known), and with options.host_calls every call.
// Returns how many HIP calls there were.
size_t read_api_records(const json& process, int16_t source, const std::string& guid, const ReadOptions& options,
                        detail::HostCallNames& host_names, Trace& trace) {
  const auto& buffers = member(process, "buffer_records");
  std::map<std::string, std::vector<std::string>> names;  // kind -> its operations' names
  auto operations_of = [&](const std::string& kind) -> const std::vector<std::string>& {
    auto it = names.find(kind);
    if (it == names.end()) it = names.emplace(kind, operation_names(process, kind)).first;
    return it->second;
  };
  size_t hip_calls = 0;
  // Records of a kind numbered past the stable ones (ROCm 7's HIP_RUNTIME_API_EXT, which numbers
  // its operations as the runtime API does) take the list's usual kind's names.
  for (const auto& [list, usual_kinds] : std::initializer_list<std::pair<const char*, std::vector<std::string>>>{
           {"hip_api", {"HIP_RUNTIME_API_EXT", "HIP_RUNTIME_API"}},
           {"hsa_api", {"HSA_CORE_API"}},
           {"marker_api", {"MARKER_CORE_API"}}}) {
    const bool hip = std::string_view(list) == "hip_api";
    for (const auto& r : member(buffers, list)) {
      if (!r.is_object()) continue;
      const std::vector<std::string>* operations = nullptr;
      if (const char* kind = api_kind_name(number(r, "kind"))) {
        operations = &operations_of(kind);
      } else {
        for (const auto& kind : usual_kinds) {
          if (operations == nullptr || operations->empty()) operations = &operations_of(kind);
        }
      }
      const auto op = static_cast<size_t>(number(r, "operation", -1));
      const std::string name = op < operations->size() ? (*operations)[op] : fmt::format("{} operation {}", list, number(r, "operation", -1));
      const int64_t start_ns = number(r, "start_timestamp"), end_ns = number(r, "end_timestamp");
      if (hip) ++hip_calls;
      if (hip && name == "hipDeviceSynchronize") {
        trace.event_operations.push_back(detail::device_synchronization(source, guid, number(r, "correlation_id"), start_ns, end_ns));
      }
      if (options.host_calls) {
        trace.host_calls.push_back({source, guid, number(r, "thread_id"), start_ns, end_ns, host_names.intern(name)});
      }
    }
  }
  return hip_calls;
}

}  // namespace

void read_rocprofv3_json_into(Trace& trace, const fs::path& file, const ReadOptions& options) {
  const json doc = json::parse(read_file(file, std::uintmax_t{4} << 30), nullptr, false);
  if (doc.is_discarded()) fail(Errc::bad_input, "{}: a rocprofv3 JSON file that is not well-formed JSON (cut short?)", file.string());
  if (!doc.is_object() || !doc.contains("rocprofiler-sdk-tool") || !doc["rocprofiler-sdk-tool"].is_array()) {
    fail(Errc::bad_input, "{}: not a rocprofv3 JSON file (no \"rocprofiler-sdk-tool\" list)", file.string());
  }
  const auto source = static_cast<int16_t>(trace.sources.size());
  if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", file.string());
  trace.sources.push_back({});
  trace.sources.back().path = file.string();
  auto index = detail::index_of(trace.geometries);
  detail::GeometryTable geometries(trace.geometries, &index);
  detail::HostCallNames host_names(trace);
  bool registers = true;
  size_t hip_calls = 0;
  for (const auto& process : doc["rocprofiler-sdk-tool"]) {
    if (!process.is_object()) continue;
    const std::string guid = std::to_string(number(member(process, "metadata"), "pid"));
    trace.sources[static_cast<size_t>(source)].guids.push_back(guid);
    std::map<int64_t, int16_t> agents;  // handle -> index
    for (const auto& a : member(process, "agents")) {
      if (!a.is_object()) continue;
      Agent agent;
      agent.source = source;
      agent.guid = guid;
      agent.id = number(a, "node_id", number(a, "id"));
      agent.type = number(a, "type") == 1 ? "CPU" : "GPU";
      agent.name = text(a, "name");
      agent.vendor_name = text(a, "vendor_name");
      agent.product_name = text(a, "product_name");
      auto positive = [&](const char* key) { const auto v = number(a, key); return v > 0 ? std::optional<int>(static_cast<int>(v)) : std::nullopt; };
      agent.compute_units = positive("cu_count");
      agent.simds_per_cu = positive("simd_per_cu");
      agent.wave_size = positive("wave_front_size");
      agent.max_waves_per_cu = positive("max_waves_per_cu");
      if (const auto clock = positive("max_engine_clk_fcompute")) agent.max_clock_mhz = *clock;
      agent.lds_kib = positive("lds_size_in_kb");
      agents[number(a, "id")] = static_cast<int16_t>(trace.agents.size());
      trace.agents.push_back(std::move(agent));
    }
    std::unordered_map<int64_t, int32_t> symbols;  // kernel_id -> index
    for (const auto& k : member(process, "kernel_symbols")) {
      if (!k.is_object()) continue;
      KernelSymbol s;
      s.source = source;
      s.guid = guid;
      s.id = number(k, "kernel_id");
      s.mangled_name = text(k, "kernel_name");
      s.display_name = text(k, "demangled_kernel_name");
      s.group_segment_size = number(k, "group_segment_size");
      s.private_segment_size = number(k, "private_segment_size");
      s.kernarg_segment_size = number(k, "kernarg_segment_size");
      s.registers_known = k.contains("arch_vgpr_count");
      registers = registers && s.registers_known;
      s.arch_vgpr_count = number(k, "arch_vgpr_count");
      s.accum_vgpr_count = number(k, "accum_vgpr_count");
      s.sgpr_count = number(k, "sgpr_count");
      symbols[s.id] = static_cast<int32_t>(trace.symbols.size());
      trace.symbols.push_back(std::move(s));
    }
    const auto& buffers = member(process, "buffer_records");
    for (const auto& r : member(buffers, "kernel_dispatch")) {
      if (!r.is_object()) continue;
      const auto& info = member(r, "dispatch_info");
      const auto symbol = symbols.find(number(info, "kernel_id", -1));
      if (symbol == symbols.end()) {
        fail(Errc::bad_input, "{}: a dispatch names kernel {}, which kernel_symbols does not list", file.string(), number(info, "kernel_id", -1));
      }
      Dispatch d{};
      d.id = number(info, "dispatch_id");
      d.start_ns = number(r, "start_timestamp");
      d.end_ns = number(r, "end_timestamp");
      d.queue_id = number(info, "queue_id");
      d.stream_id = number(r, "stream_id", number(info, "stream_id", d.queue_id));  // ROCm 7 records the HIP stream
      d.correlation_id = number(r, "correlation_id");
      const auto agent = agents.find(number(info, "agent_id", -1));
      d.agent = agent == agents.end() ? int16_t{-1} : agent->second;
      d.source = source;
      d.symbol = symbol->second;
      DispatchGeometry g;
      g.grid = xyz(member(info, "grid_size"));
      const auto block = xyz(member(info, "workgroup_size"));
      for (int i = 0; i < 3; ++i) g.workgroup[i] = static_cast<uint32_t>(block[i]);
      g.group_segment_size = static_cast<uint32_t>(number(info, "group_segment_size"));
      g.private_segment_size = static_cast<uint32_t>(number(info, "private_segment_size"));
      d.geometry = geometries.intern(g);
      trace.dispatches.push_back(d);
    }
    const auto directions = operation_names(process, "MEMORY_COPY");
    for (const auto& r : member(buffers, "memory_copy")) {
      if (!r.is_object()) continue;
      MemoryCopy c;
      c.source = source;
      c.guid = guid;
      c.id = static_cast<int64_t>(trace.memory_copies.size()) + 1;
      c.correlation_id = number(r, "correlation_id");
      c.start_ns = number(r, "start_timestamp");
      c.end_ns = number(r, "end_timestamp");
      c.size = number(r, "bytes");
      c.stream_id = number(r, "stream_id");
      const auto op = static_cast<size_t>(number(r, "operation"));
      c.name = op < directions.size() ? directions[op] : "MEMORY_COPY";
      auto id_of = [&](const char* key) {
        const auto a = agents.find(number(r, key, -1));
        return a == agents.end() ? int64_t{-1} : trace.agents[static_cast<size_t>(a->second)].id;
      };
      c.src_agent_id = id_of("src_agent_id");
      c.dst_agent_id = id_of("dst_agent_id");
      trace.memory_copies.push_back(std::move(c));
    }
    hip_calls += read_api_records(process, source, guid, options, host_names, trace);
  }
  if (!registers) {
    trace.warnings.push_back(fmt::format("{}: kernel symbols without register counts (rocprofv3 before ROCm 6.4): occupancy is not computed",
                                         file.string()));
  }
  trace.warnings.push_back(hip_calls > 0 ? fmt::format("{}: its HIP API records hold no call's arguments (which event, which stream): "
                                                       "the dependency graph has stream order, device synchronizations and timestamps only",
                                                       file.string())
                                         : fmt::format("{}: no HIP API records (rocprofv3 without --hip-trace): the dependency graph has "
                                                       "stream order and timestamps only",
                                                       file.string()));
}

}  // namespace rpl::trace
