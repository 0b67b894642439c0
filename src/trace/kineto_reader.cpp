// PyTorch profiler traces (Kineto): {"schemaVersion", "deviceProperties": [...], "baseTimeNanoseconds",
// "traceEvents": [...]}. Complete events ("ph": "X") carry ts and dur in microseconds with three
// decimals, so they are parsed as long double: a double loses the nanoseconds of a timestamp of 16
// digits. CUDA kernel events ("cat": "kernel"; "Kernel" in 2021's format) hold grid and block (in
// blocks and threads), registers per thread and shared memory; ROCm's hold none of these.
#include <rpl/trace/kineto_reader.hpp>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "geometry_table.hpp"
#include "host_call_names.hpp"
#include "symbols_by_name.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
namespace {

using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, long double>;

int64_t nanoseconds(const Json& microseconds) {
  return microseconds.is_number() ? static_cast<int64_t>(std::llround(microseconds.get<long double>() * 1000)) : 0;
}

int64_t integer(const Json& args, const char* key, int64_t fallback = 0) {
  auto it = args.find(key);
  return it != args.end() && it->is_number() ? static_cast<int64_t>(it->get<long double>()) : fallback;
}

std::array<uint64_t, 3> triple(const Json& args, const char* key) {
  std::array<uint64_t, 3> out{1, 1, 1};
  auto it = args.find(key);
  if (it == args.end() || !it->is_array()) return out;
  for (size_t i = 0; i < 3 && i < it->size(); ++i) {
    if ((*it)[i].is_number()) out[i] = static_cast<uint64_t>((*it)[i].get<long double>());
  }
  return out;
}

}  // namespace

void read_kineto_into(Trace& trace, const fs::path& file, const ReadOptions& options) {
  const Json doc = Json::parse(read_file(file, std::uintmax_t{4} << 30), nullptr, false);
  if (doc.is_discarded()) fail(Errc::bad_input, "{}: a PyTorch profiler trace that is not well-formed JSON (cut short?)", file.string());
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    fail(Errc::bad_input, "{}: not a PyTorch profiler trace (a JSON object with traceEvents)", file.string());
  }
  const auto source = static_cast<int16_t>(trace.sources.size());
  if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", file.string());
  const int64_t base = doc.contains("baseTimeNanoseconds") && doc["baseTimeNanoseconds"].is_number()
                           ? static_cast<int64_t>(doc["baseTimeNanoseconds"].get<long double>())
                           : 0;
  // The process: the pid of the host events (the GPU's events carry the device as their pid).
  std::string guid;
  for (const auto& e : doc["traceEvents"]) {
    if (e.is_object() && e.value("cat", "") == "cuda_runtime" && e.contains("pid")) {
      guid = e["pid"].dump();
      break;
    }
  }
  if (guid.empty()) guid = file.stem().string();
  Source s;
  s.path = file.string();
  s.guids = {guid};
  trace.sources.push_back(std::move(s));

  std::map<int64_t, int16_t> agents;  // device -> index
  if (doc.contains("deviceProperties") && doc["deviceProperties"].is_array()) {
    for (const auto& p : doc["deviceProperties"]) {
      if (!p.is_object()) continue;
      Agent a;
      a.source = source;
      a.guid = guid;
      a.id = integer(p, "id");
      a.type = "GPU";
      a.product_name = p.value("name", "");
      const int warp = static_cast<int>(integer(p, "warpSize", 32));
      a.wave_size = warp;
      a.compute_units = static_cast<int>(integer(p, "numSms"));
      if (warp == 32) {  // CUDA: its compute capability names the architecture
        a.vendor_name = "NVIDIA";
        a.name = fmt::format("sm_{}{}", integer(p, "computeMajor"), integer(p, "computeMinor"));
      } else {  // ROCm reports a compute capability (9.4) that does not name one gfx target
        a.vendor_name = "AMD";
        a.name = p.value("gcnArchName", "");
      }
      if (const auto smem = integer(p, "sharedMemPerMultiprocessor"); smem > 0) a.lds_kib = static_cast<int>(smem / 1024);
      agents[a.id] = static_cast<int16_t>(trace.agents.size());
      trace.agents.push_back(std::move(a));
    }
  }
  auto agent_of = [&](int64_t device) -> int16_t {
    if (auto it = agents.find(device); it != agents.end()) return it->second;
    Agent a;
    a.source = source;
    a.guid = guid;
    a.id = device;
    a.type = "GPU";
    trace.agents.push_back(std::move(a));
    return agents[device] = static_cast<int16_t>(trace.agents.size() - 1);
  };

  auto index = detail::index_of(trace.geometries);
  detail::GeometryTable geometries(trace.geometries, &index);
  detail::SymbolsByName symbols(trace, source, guid);
  detail::HostCallNames host_names(trace);
  bool registers = true, any_kernel = false, any_wait = false;
  int64_t next_id = 1;
  for (const auto& e : doc["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const std::string cat = e.value("cat", "");
    const Json& args = e.contains("args") && e["args"].is_object() ? e["args"] : Json::object();
    const int64_t start = base + nanoseconds(e.value("ts", Json(0))), end = start + nanoseconds(e.value("dur", Json(0)));
    if (cat == "kernel" || cat == "Kernel") {
      any_kernel = true;
      Dispatch d{};
      d.id = next_id++;
      d.start_ns = start;
      d.end_ns = end;
      d.stream_id = integer(args, "stream");
      d.queue_id = d.stream_id;
      d.correlation_id = integer(args, "correlation");
      d.agent = agent_of(integer(args, "device"));
      d.source = source;
      d.symbol = symbols.intern(e.value("name", ""), [&](KernelSymbol& k) {  // Kineto writes the demangled name
        k.arch_vgpr_count = integer(args, "registers per thread");
        k.registers_known = args.contains("registers per thread");
        k.lds_split_known = false;  // "shared memory" is the launch's total
        registers = registers && k.registers_known;
      });
      DispatchGeometry g;
      const auto grid = triple(args, "grid"), block = triple(args, "block");
      for (int i = 0; i < 3; ++i) {
        g.workgroup[i] = static_cast<uint32_t>(block[i]);
        g.grid[i] = grid[i] * block[i];  // blocks, as CUDA counts them; work-items, as the model does
      }
      g.group_segment_size = static_cast<uint32_t>(integer(args, "shared memory"));
      d.geometry = geometries.intern(g);
      trace.dispatches.push_back(d);
    } else if (cat == "gpu_memcpy" || cat == "gpu_memset") {
      MemoryCopy c;
      c.source = source;
      c.guid = guid;
      c.id = static_cast<int64_t>(trace.memory_copies.size()) + 1;
      c.correlation_id = integer(args, "correlation");
      c.start_ns = start;
      c.end_ns = end;
      c.size = integer(args, "bytes");
      c.name = e.value("name", "");
      c.stream_id = integer(args, "stream");
      c.queue_id = c.stream_id;
      trace.memory_copies.push_back(std::move(c));
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      const std::string name = e.value("name", "");
      if (name == "cudaDeviceSynchronize") {
        trace.event_operations.push_back(detail::device_synchronization(source, guid, integer(args, "correlation"), start, end));
      }
      any_wait = any_wait || name == "cudaStreamWaitEvent" || name == "cudaStreamSynchronize" || name == "cudaEventSynchronize";
      if (options.host_calls) {
        trace.host_calls.push_back({source, guid, integer(e, "tid"), start, end, host_names.intern(name)});
      }
    }
  }
  if (!any_kernel) trace.warnings.push_back(fmt::format("{}: no GPU kernel events (was the profiler given ProfilerActivity.CUDA?)", file.string()));
  if (any_kernel && !registers) {
    trace.warnings.push_back(fmt::format("{}: kernel events without register counts (ROCm's Kineto records none): occupancy is not computed",
                                         file.string()));
  }
  if (any_wait) {
    trace.warnings.push_back(fmt::format("{}: Kineto records which stream an event wait or a synchronization names in no event: the "
                                         "dependency graph has stream order, device synchronizations and timestamps only",
                                         file.string()));
  }
}

}  // namespace rpl::trace
