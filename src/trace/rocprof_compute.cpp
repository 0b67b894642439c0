// rocprof-compute (Omniperf 2.x and later) workload folders: pmc_perf.csv, one row per dispatch and
// a column per counter (Omniperf 2.0 on rocprofv2: 2,718 columns on an MI300X; rocprof-compute 3.3
// on rocprofv3: 2,043), and sysinfo.csv, the GPU. Dispatch columns: Dispatch_ID, GPU_ID,
// Grid_Size and Workgroup_Size (totals of work-items), LDS_Per_Workgroup, Scratch_Per_Workitem,
// Arch_VGPR, Accum_VGPR, SGPR, Kernel_Name (ending " (.kd)"), Start_Timestamp, End_Timestamp.
// Every other column is a counter, except each pass's repeats (Wave_Size_1, Correlation_ID_1,
// Kernel_ID_1, XCC_Index) and the per-channel columns (TCC_HIT[0]: their _sum is a column too).
#include <rpl/trace/amd_profiler_files.hpp>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include <rpl/core/error.hpp>

#include "csv_rows.hpp"
#include "geometry_table.hpp"
#include "dispatch_rows.hpp"
#include "omniperf_files.hpp"
#include "symbols_by_name.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
using detail::csv_int;
using detail::csv_number;
using detail::CsvColumns;
using detail::CsvRow;

namespace {

bool repeated_or_per_channel(const std::string& name) {
  if (name.find('[') != std::string::npos || name == "XCC_Index") return true;
  for (std::string_view base : {"Wave_Size_", "Correlation_ID_", "Kernel_ID_"}) {
    if (name.rfind(base, 0) == 0 && name.size() > base.size() &&
        std::all_of(name.begin() + static_cast<long>(base.size()), name.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return true;
    }
  }
  return false;
}

}  // namespace

namespace detail {

Agent omniperf_gpu(const fs::path& file, int16_t source, const std::string& guid) {
  Agent a;
  a.source = source;
  a.guid = guid;
  a.type = "GPU";
  a.vendor_name = "AMD";
  std::optional<CsvColumns> cols;
  detail::read_csv_rows(file, [&](const CsvRow& row, size_t r) {
    if (r == 0) {
      cols.emplace(row);
      return true;
    }
    auto text = [&](std::initializer_list<std::string_view> names) { auto i = cols->find_any(names); return i ? std::string(row[*i]) : std::string(); };
    auto number = [&](std::initializer_list<std::string_view> names) -> std::optional<int> {
      auto i = cols->find_any(names);
      auto v = i ? csv_number(row[*i]) : std::nullopt;
      return v && *v > 0 ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
    };
    // Each pair: 2.x and 3.x's name, then 1.x's.
    a.name = text({"gpu_arch", "gpu_soc"});
    a.product_name = text({"gpu_model", "name"});
    a.compute_units = number({"cu_per_gpu", "numCU"});
    a.simds_per_cu = number({"simd_per_cu", "numSIMD"});
    a.wave_size = number({"wave_size", "waveSize"});
    a.max_waves_per_cu = number({"max_waves_per_cu", "maxWavesPerCU"});
    if (auto clock = number({"max_sclk", "sclk"})) a.max_clock_mhz = *clock;
    if (auto i = cols->find_any({"hbm_bw", "hbmBW"})) {  // GB/s (rocprof-compute 3.3 dropped it)
      if (auto gbs = csv_number(row[*i]); gbs && *gbs > 0) a.dram_bytes_per_s = *gbs * 1e9;
    }
    return false;
  });
  return a;
}

std::vector<std::pair<size_t, uint32_t>> counter_columns(const CsvColumns& cols, const std::vector<std::string>& metadata, Trace& trace) {
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t i = 0; i < trace.counter_names.size(); ++i) index.emplace(trace.counter_names[i], i);
  std::vector<std::pair<size_t, uint32_t>> out;
  for (size_t i = 0; i < cols.names().size(); ++i) {
    const auto& name = cols.names()[i];
    if (std::find(metadata.begin(), metadata.end(), name) != metadata.end() || repeated_or_per_channel(name)) continue;
    auto [it, added] = index.try_emplace(name, static_cast<uint32_t>(trace.counter_names.size()));
    if (added) trace.counter_names.push_back(name);
    out.emplace_back(i, it->second);
  }
  return out;
}

void add_counter_values(const CsvRow& row, const std::vector<std::pair<size_t, uint32_t>>& counters, uint32_t dispatch, Trace& trace) {
  for (const auto& [column, counter] : counters) {
    if (auto v = csv_number(row[column])) trace.counter_values.push_back({dispatch, counter, *v});
  }
}

}  // namespace detail

void read_rocprof_compute_into(Trace& trace, const fs::path& pmc_perf) {
  const auto source = static_cast<int16_t>(trace.sources.size());
  if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", pmc_perf.string());
  const std::string guid = pmc_perf.parent_path().filename().string();
  trace.sources.push_back({});
  trace.sources.back().path = pmc_perf.string();
  trace.sources.back().guids = {guid};
  const fs::path sysinfo = pmc_perf.parent_path() / "sysinfo.csv";
  std::error_code ec;
  int16_t agent = -1;
  if (fs::exists(sysinfo, ec)) {
    agent = static_cast<int16_t>(trace.agents.size());
    trace.agents.push_back(detail::omniperf_gpu(sysinfo, source, guid));
  } else {
    trace.warnings.push_back(fmt::format("{}: no sysinfo.csv beside it: {} (no occupancy, no peaks)", pmc_perf.string(), kGpuNotKnown));
  }
  auto index = detail::index_of(trace.geometries);
  detail::GeometryTable geometries(trace.geometries, &index);
  detail::SymbolsByName symbols(trace, source, guid);
  struct Columns {
    size_t id, name, start, end;
    detail::TotalsColumns totals;
    detail::RegisterColumns registers;
    std::vector<std::pair<size_t, uint32_t>> counters;  // column, counter
  } c{};
  detail::read_csv_rows(pmc_perf, [&](const CsvRow& row, size_t r) {
    if (r == 0) {
      CsvColumns cols(row);
      auto need = [&](std::string_view name) {
        if (auto i = cols.find(name)) return *i;
        fail(Errc::bad_input, "{}: no column {} (expected rocprof-compute's pmc_perf.csv: Dispatch_ID, GPU_ID, Grid_Size, Workgroup_Size, "
                              "LDS_Per_Workgroup, ..., Kernel_Name, <counters>, Start_Timestamp, End_Timestamp)",
             pmc_perf.string(), name);
      };
      c.id = need("Dispatch_ID");
      c.name = need("Kernel_Name");
      c.totals = {need("Grid_Size"), need("Workgroup_Size"), cols.find("LDS_Per_Workgroup"), cols.find("Scratch_Per_Workitem"), "Grid_Size",
                  "Workgroup_Size"};
      c.start = need("Start_Timestamp");
      c.end = need("End_Timestamp");
      c.registers = {cols.find("Arch_VGPR"), cols.find("Accum_VGPR"), cols.find("SGPR")};
      c.counters = detail::counter_columns(cols, {"Dispatch_ID", "GPU_ID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
                                                   "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "Wave_Size", "Kernel_Name",
                                                   "Correlation_ID", "Kernel_ID", "Start_Timestamp", "End_Timestamp"},
                                           trace);
      return true;
    }
    const detail::CsvIntegers field(pmc_perf, row, r);
    Dispatch d{};
    d.id = field.required(c.id, "Dispatch_ID");
    d.start_ns = field.required(c.start, "Start_Timestamp");
    d.end_ns = field.required(c.end, "End_Timestamp");
    d.queue_id = d.stream_id = d.correlation_id = 0;
    d.agent = agent;
    d.source = source;
    std::string name(row[c.name]);
    if (name.size() > 6 && name.compare(name.size() - 6, 6, " (.kd)") == 0) name.resize(name.size() - 6);
    d.symbol = symbols.intern(name, [&](KernelSymbol& k) { c.registers.fill(k, field); });
    d.geometry = geometries.intern(c.totals.geometry(field));
    const auto dispatch = static_cast<uint32_t>(trace.dispatches.size());
    trace.dispatches.push_back(d);
    detail::add_counter_values(row, c.counters, dispatch, trace);
    return true;
  });
  trace.warnings.push_back(fmt::format("{}: rocprof-compute times each dispatch while it collects counters (the program replayed once per "
                                       "pass): the times are not those of a plain run, and there are no streams or API calls",
                                       pmc_perf.string()));
}

}  // namespace rpl::trace
