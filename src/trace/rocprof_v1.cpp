// Legacy rocprof's results.csv (ROCm 5.x to 6.x): one row per dispatch, the same 22 columns on
// ROCm 5.7 and 6.4 (Index, KernelName, gpu-id, queue-id, queue-index, pid, tid, grd, wgr, lds,
// scr, arch_vgpr, accum_vgpr, sgpr, wave_size, sig, obj, DispatchNs, BeginNs, EndNs, CompleteNs,
// DurationNs; earlier releases wrote vgpr for arch_vgpr). grd and wgr are totals of work-items,
// so the geometry is one-dimensional. gpu-id is the HSA node: the GPU is known where rocprof kept
// rocminfo's output beside it (results.sysinfo.txt). `rocprof --pmc` adds a column per counter;
// an Omniperf 1.x workload is such a file (pmc_perf.csv, 1,013 columns on an MI200) with the GPU in
// the sysinfo.csv beside it. rocprof also writes the rows to results.db, a SQLite database whose
// KERN table has the same columns (KernelName's value kept in its double quotes; HIP, OPS and COPY
// tables with --hip-trace).
#include <rpl/trace/amd_profiler_files.hpp>

#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/error.hpp>

#include "csv_rows.hpp"
#include "geometry_table.hpp"
#include "dispatch_rows.hpp"
#include "omniperf_files.hpp"
#include "symbols_by_name.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
using detail::csv_int;
using detail::CsvColumns;
using detail::CsvRow;

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// rocminfo's agents ("  Node:  8", "  Name:  gfx90a", ...), by node; the keys of a block are
// indented by two spaces (deeper ones belong to its ISA and pools).
std::map<int64_t, Agent> rocminfo_agents(const fs::path& file) {
  std::map<int64_t, Agent> out;
  std::ifstream in(file);
  std::string line;
  Agent current;
  bool in_agent = false;  // (an optional<Agent> here draws GCC 12's false -Wmaybe-uninitialized at -O3)
  std::optional<int64_t> node;
  auto flush = [&] {
    if (in_agent && node) out[*node] = current;
    in_agent = false, node.reset();
  };
  auto number = [](const std::string& v) -> std::optional<int> {
    auto n = csv_int(v.substr(0, v.find('(')));
    return n ? std::optional<int>(static_cast<int>(*n)) : std::nullopt;
  };
  while (std::getline(in, line)) {
    if (line.rfind("Agent ", 0) == 0) {
      flush();
      current = Agent{}, in_agent = true;
      continue;
    }
    if (!in_agent || line.size() < 3 || line[0] != ' ' || line[1] != ' ' || line[2] == ' ') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "Name" && current.name.empty()) current.name = value;
    else if (key == "Marketing Name") current.product_name = value;
    else if (key == "Vendor Name") current.vendor_name = value;
    else if (key == "Device Type") current.type = value;
    else if (key == "Node") node = number(value);
    else if (key == "Compute Unit") current.compute_units = number(value);
    else if (key == "SIMDs per CU") current.simds_per_cu = number(value);
    else if (key == "Wavefront Size") current.wave_size = number(value);
    else if (key == "Max Waves Per CU") current.max_waves_per_cu = number(value);
    else if (key == "Max Clock Freq. (MHz)") current.max_clock_mhz = number(value);
  }
  flush();
  return out;
}

// "laplacian_kernel.kd", "foo(int) [clone .kd]": the name without the code object's suffix.
std::string kernel_name(std::string_view name) {
  for (std::string_view suffix : {" [clone .kd]", ".kd"}) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return std::string(name.substr(0, name.size() - suffix.size()));
  }
  return std::string(name);
}

// The KERN table of a results.db as CSV rows would give it: its column names first, then each row's
// values as text, a name's double quotes taken off.
void read_kern_rows(const fs::path& file, const std::function<bool(const CsvRow&, size_t)>& on_row) {
  try {
    SQLite::Database db(file.string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(db, "SELECT * FROM KERN ORDER BY rowid");
    std::vector<std::string> values(static_cast<size_t>(st.getColumnCount()));
    CsvRow row(values.size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = st.getColumnName(static_cast<int>(i));
    row.assign(values.begin(), values.end());
    if (!on_row(row, 0)) return;
    for (size_t r = 1; st.executeStep(); ++r) {
      for (size_t i = 0; i < values.size(); ++i) {
        const auto column = st.getColumn(static_cast<int>(i));
        values[i] = column.isNull() ? std::string() : column.getString();
        if (values[i].size() >= 2 && values[i].front() == '"' && values[i].back() == '"') values[i] = values[i].substr(1, values[i].size() - 2);
        row[i] = values[i];
      }
      if (!on_row(row, r)) return;
    }
  } catch (const SQLite::Exception& e) {
    fail(Errc::bad_input, "{}: cannot read this legacy rocprof database: {}", file.string(), e.what());
  }
}

// rocprof --hip-trace's totals beside results.csv (Name, Calls, TotalDurationNs, AverageNs,
// Percentage): its copies and HIP calls, which no per-dispatch file holds; said in a warning.
struct Totals {
  const char* file;  // results.<file>.csv
  const char* what;
  const char* one;   // what one of them is called
  const char* many;
};

std::optional<std::string> totals_warning(const fs::path& results, const Totals& kind) {
  const fs::path totals = results.parent_path() / ("results." + std::string(kind.file) + ".csv");
  std::error_code ec;
  if (!fs::exists(totals, ec)) return std::nullopt;
  int64_t calls = 0, total_ns = 0, longest_ns = -1;
  std::string longest;
  size_t name = 0, count = 0, duration = 0;
  try {
    detail::read_csv_rows(totals, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        CsvColumns cols(row);
        const auto n = cols.find("Name"), c = cols.find("Calls"), d = cols.find("TotalDurationNs");
        if (!n || !c || !d) return false;
        name = *n, count = *c, duration = *d;
        return true;
      }
      const int64_t ns = csv_int(row[duration]).value_or(0);
      calls += csv_int(row[count]).value_or(0);
      total_ns += ns;
      if (ns > longest_ns) longest_ns = ns, longest = std::string(row[name]);
      return true;
    });
  } catch (const Error& e) {  // a side file: the trace is read without it
    return fmt::format("{}: rocprof's totals of its {} beside it are unreadable: {}", results.string(), kind.what, e.what());
  }
  if (longest_ns < 0) return std::nullopt;
  return fmt::format("{}: rocprof kept its {} as totals only ({}: {} {}, {:.3f} ms in all, the most in {}, {:.3f} ms): they are "
                     "not in the dependency graph",
                     results.string(), kind.what, totals.filename().string(), calls, calls == 1 ? kind.one : kind.many,
                     static_cast<double>(total_ns) / 1e6, longest, static_cast<double>(longest_ns) / 1e6);
}

using RowReader = void (*)(const fs::path&, const std::function<bool(const CsvRow&, size_t)>&);

// Reads the rows of results.csv or of results.db's KERN table (read_rows), one dispatch each.
void read_results(Trace& trace, const fs::path& file, RowReader read_rows, const char* rows_name) {
  const auto source = static_cast<int16_t>(trace.sources.size());
  if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", file.string());
  const std::string guid = file.parent_path().filename().string();
  Source s;
  s.path = file.string();
  s.guids = {guid};
  trace.sources.push_back(std::move(s));

  fs::path sysinfo = file;
  sysinfo.replace_extension(".sysinfo.txt");
  std::map<int64_t, Agent> known;
  std::optional<Agent> workload_gpu;  // an Omniperf 1.x workload's one GPU, whatever its gpu-id
  std::error_code ec;
  if (fs::exists(sysinfo, ec)) known = rocminfo_agents(sysinfo);
  if (const auto omniperf = file.parent_path() / "sysinfo.csv"; known.empty() && fs::exists(omniperf, ec)) {
    workload_gpu = detail::omniperf_gpu(omniperf, source, guid);
  } else if (known.empty()) {
    trace.warnings.push_back(fmt::format("{}: no rocminfo output beside it ({}): {} (no occupancy, no peaks)", file.string(),
                                         sysinfo.filename().string(), kGpuNotKnown));
  }
  std::map<int64_t, int16_t> agents;  // node -> index
  auto agent_of = [&](int64_t node) {
    if (auto it = agents.find(node); it != agents.end()) return it->second;
    Agent a = workload_gpu ? *workload_gpu : known.count(node) ? known[node] : Agent{};
    a.source = source;
    a.guid = guid;
    a.id = node;
    if (a.type.empty()) a.type = "GPU";
    const auto index = static_cast<int16_t>(trace.agents.size());
    trace.agents.push_back(std::move(a));
    return agents[node] = index;
  };

  auto index = detail::index_of(trace.geometries);
  detail::GeometryTable geometries(trace.geometries, &index);
  trace.dispatches.reserve(trace.dispatches.size() + detail::estimated_rows(file));
  detail::SymbolsByName symbols(trace, source, guid);
  struct Columns {
    size_t index, name, gpu, begin, end;
    std::optional<size_t> queue;
    detail::TotalsColumns totals;
    detail::RegisterColumns registers;
    std::vector<std::pair<size_t, uint32_t>> counters;  // column, counter (rocprof --pmc)
  } c{};
  read_rows(file, [&](const CsvRow& row, size_t r) {
    auto need = [&](const CsvColumns& cols, std::initializer_list<std::string_view> names) {
      if (auto i = cols.find_any(names)) return *i;
      std::string found;
      for (const auto& n : cols.names()) found += (found.empty() ? "" : ", ") + n;
      fail(Errc::bad_input, "{}: no column {} (expected rocprof's {}: Index, KernelName, gpu-id, queue-id, ..., grd, wgr, lds, scr, "
                            "arch_vgpr, accum_vgpr, sgpr, ..., BeginNs, EndNs; rocprof --timestamp on writes the times; found {})",
           file.string(), *names.begin(), rows_name, found);
    };
    if (r == 0) {
      CsvColumns cols(row);
      c.index = need(cols, {"Index"});
      c.name = need(cols, {"KernelName"});
      c.gpu = need(cols, {"gpu-id"});
      c.totals = {need(cols, {"grd"}), need(cols, {"wgr"}), cols.find("lds"), cols.find("scr"), "grd", "wgr"};
      c.begin = need(cols, {"BeginNs"});
      c.end = need(cols, {"EndNs"});
      c.queue = cols.find("queue-id");
      c.registers = {cols.find_any({"arch_vgpr", "vgpr"}), cols.find("accum_vgpr"), cols.find("sgpr")};
      c.counters = detail::counter_columns(cols, {"Index", "KernelName", "gpu-id", "queue-id", "queue-index", "pid", "tid", "grd", "wgr", "lds",
                                                   "scr", "vgpr", "arch_vgpr", "accum_vgpr", "sgpr", "fbar", "wave_size", "sig", "obj",
                                                   "DispatchNs", "BeginNs", "EndNs", "CompleteNs", "DurationNs"},
                                           trace);
      return true;
    }
    const detail::CsvIntegers field(file, row, r);
    Dispatch d{};
    d.id = field.required(c.index, "Index");
    d.start_ns = field.required(c.begin, "BeginNs");
    d.end_ns = field.required(c.end, "EndNs");
    d.queue_id = field.optional(c.queue);
    d.stream_id = d.queue_id;  // no streams recorded: HIP gives each stream a queue of its own while it has queues
    d.correlation_id = 0;
    d.agent = agent_of(field.required(c.gpu, "gpu-id"));
    d.source = source;
    const std::string name = kernel_name(row[c.name]);
    d.symbol = symbols.intern(name, [&](KernelSymbol& k) { c.registers.fill(k, field); });
    d.geometry = geometries.intern(c.totals.geometry(field));
    detail::add_counter_values(row, c.counters, static_cast<uint32_t>(trace.dispatches.size()), trace);
    trace.dispatches.push_back(d);
    return true;
  });
  if (!c.counters.empty()) {
    trace.warnings.push_back(fmt::format("{}: rocprof timed each dispatch while it collected counters (the program replayed once per "
                                         "pass): the times are not those of a plain run", file.string()));
  }
  trace.warnings.push_back(fmt::format("{}: legacy rocprof records no API calls or streams: the dependency graph has each queue's order and timestamps only",
                                       file.string()));
  for (const Totals& kind : {Totals{"copy_stats", "memory copies", "copy", "copies"}, Totals{"hip_stats", "HIP calls", "call", "calls"}}) {
    if (auto warning = totals_warning(file, kind)) trace.warnings.push_back(std::move(*warning));
  }
}

}  // namespace

void read_rocprof_v1_into(Trace& trace, const fs::path& results_csv) { read_results(trace, results_csv, &detail::read_csv_rows, "results.csv"); }

void read_rocprof_v1_database_into(Trace& trace, const fs::path& results_db) { read_results(trace, results_db, &read_kern_rows, "KERN table"); }

}  // namespace rpl::trace
