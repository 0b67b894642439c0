// Nsight Compute's CSV. Where ncu's output was captured whole, its ==PROF== lines and the program's
// own output come first. The details page (the default) has a header and a row per launch, section
// and metric:
//   "ID","Process ID","Process Name","Host Name","Kernel Name",["Kernel Time",]"Context","Stream",
//   ["Block Size","Grid Size","Device","CC",]"Section Name","Metric Name","Metric Unit",
//   "Metric Value"[,"Rule Name","Rule Type","Rule Description",...]
// (the bracketed columns: older releases wrote Kernel Time, a wall-clock date; newer ones the launch's
// block and grid as "(x, y, z)", the device's index and compute capability). A rule's row has no
// metric name. The raw page (--page raw) has the same first columns, then a column per metric, a
// row of their units after the header, and a row per launch. Values may carry thousands separators
// ("66,048"); units may carry an SI prefix (Kbyte, usecond) or a time's short name (ns).
#include <rpl/trace/ncu_reader.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rpl/core/demangle.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/ncu_csv_text.hpp>

#include "geometry_table.hpp"
#include "symbols_by_name.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
namespace {

// A number as ncu writes it ("66,048"), where it is finite. An instanced metric, exported with
// --print-metric-instances values, gives its aggregate before its instances' values in brackets
// ("44 (44)", "32,360,448 (5,880,320; 4,849,664; ...)"): the aggregate is the metric's value.
std::optional<double> number(std::string text) {
  if (const size_t bracket = text.find(" ("); bracket != std::string::npos && text.back() == ')') text.resize(bracket);
  const auto v = ncu::csv_number(std::move(text));
  return v && std::isfinite(*v) ? v : std::nullopt;
}

// The instances of a metric exported with --print-metric-instances details, where each is labelled:
// "455,888,896 (FFMA: 268,435,456; LEA: 38,895,616; ...)". ncu's per-opcode metrics label theirs
// with SASS opcodes (sass__thread_inst_executed_true_per_opcode, the instruction mix of its full
// set) or ncu's instruction categories; the reader keeps them as counters named METRIC[LABEL], as
// rocprof names a counter's instances. Other metrics' instances (per SM, per instruction address)
// stay summed in their aggregate.
std::vector<std::pair<std::string, double>> labelled_instances(const std::string& text) {
  std::vector<std::pair<std::string, double>> out;
  const size_t open = text.find(" (");
  if (open == std::string::npos || text.back() != ')') return out;
  const std::string_view inner = std::string_view(text).substr(open + 2, text.size() - open - 3);
  for (size_t at = 0; at <= inner.size();) {
    const size_t end = std::min(inner.find("; ", at), inner.size());
    const std::string_view item = inner.substr(at, end - at);
    const size_t colon = item.rfind(": ");
    const auto count = colon == std::string_view::npos ? std::nullopt : ncu::csv_number(std::string(item.substr(colon + 2)));
    if (colon == 0 || !count || !std::isfinite(*count)) return {};  // unlabelled, or not a count
    out.emplace_back(std::string(item.substr(0, colon)), *count);
    at = end + 2;
  }
  return out;
}

// What a value in this unit is multiplied by to be in base units: a time in nanoseconds, a rate
// per second ("cycle/nsecond", "Ghz": cycles a second), anything else without its SI prefix
// ("Kbyte/block": bytes).
double unit_factor(const std::string& unit) {
  static const std::map<std::string, double> times = {{"nsecond", 1},  {"ns", 1},  {"usecond", 1e3}, {"us", 1e3},
                                                      {"msecond", 1e6}, {"ms", 1e6}, {"second", 1e9},  {"s", 1e9}};
  static const std::map<char, double> prefixes = {{'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}};
  const size_t slash = unit.find('/');
  const std::string base = unit.substr(0, slash);
  double factor = 1;
  if (auto it = times.find(base); it != times.end()) {
    factor = it->second;
  } else if (base.size() > 1 && std::islower(static_cast<unsigned char>(base[1]))) {
    if (auto p = prefixes.find(base[0]); p != prefixes.end()) factor = p->second;
  }
  if (slash != std::string::npos) {
    if (auto per = times.find(unit.substr(slash + 1)); per != times.end()) factor *= 1e9 / per->second;
  }
  return factor;
}

// A count the file gives as a number, where it fits T; fallback where it is missing or does not.
template <typename T>
T bounded(std::optional<double> v, T fallback) {
  if (!v || !(*v >= 0) || *v > static_cast<double>(std::numeric_limits<T>::max() / 2)) return fallback;
  return static_cast<T>(*v);
}

// "(384, 1, 1)"; nothing where the column is empty or holds something else.
std::optional<std::array<uint64_t, 3>> triple(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  std::array<uint64_t, 3> out{1, 1, 1};
  size_t at = 1;
  for (size_t i = 0; i < 3; ++i) {
    const size_t end = std::min(text.find(',', at), text.size() - 1);
    out[i] = bounded<uint32_t>(number(text.substr(at, end - at)), 0);
    if (out[i] == 0) return std::nullopt;
    if (end == text.size() - 1) break;
    at = end + 1;
  }
  return out;
}

struct Launch {
  std::string kernel, stream, device, cc, product;
  std::optional<std::array<uint64_t, 3>> block, grid;  // threads, blocks
  std::unordered_map<std::string, double> metrics;     // by name, in base units (times in ns)
  std::vector<std::string> order;                      // the metric names, as the file lists them
  std::vector<ToolFinding> rules;                      // the details page's rule rows, dispatch unset

  std::optional<double> metric(std::initializer_list<const char*> names) const {
    for (const char* n : names) {
      if (auto it = metrics.find(n); it != metrics.end()) return it->second;
    }
    return std::nullopt;
  }
  void add(const std::string& name, const std::string& value, const std::string& unit) {
    auto v = number(value);
    if (!v || metrics.count(name)) return;
    metrics.emplace(name, *v * unit_factor(unit));
    order.push_back(name);
    if (name.find("_per_opcode") == std::string::npos) return;
    for (const auto& [label, count] : labelled_instances(value)) {
      const std::string instance = name + '[' + label + ']';
      if (metrics.emplace(instance, count * unit_factor(unit)).second) order.push_back(instance);
    }
  }
};

// The columns that say which launch a row is of; every other column of the raw page is a metric.
constexpr std::array<std::string_view, 12> kLaunchColumns = {"ID",      "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time",
                                                             "Context", "Stream",     "Block Size",   "Grid Size", "Device",      "CC"};

struct Columns {
  std::vector<std::string> header;
  size_t id, kernel, stream;
  std::optional<size_t> block, grid, device, cc, display_name;
  std::optional<size_t> section, metric, unit, value;  // the details page's
  std::optional<size_t> rule, rule_type, rule_text, speedup_kind, speedup;  // its rule rows' (newer releases)
  std::vector<size_t> metrics;                // the raw page's
  size_t needed = 0;                          // the last column a row must have

  std::string text(const std::vector<std::string>& fields, const std::optional<size_t>& i) const {
    return i && *i < fields.size() ? fields[*i] : std::string();
  }
};

std::optional<size_t> column(const std::vector<std::string>& header, std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

Columns columns_of(std::vector<std::string> header, const fs::path& file) {
  Columns c;
  auto need = [&](const char* name) {
    if (auto i = column(header, name)) return *i;
    fail(Errc::bad_input, "{}: no column {} in Nsight Compute's header (expected ID, Process ID, ..., Kernel Name, ..., Stream, then "
                          "Section Name, Metric Name, Metric Unit, Metric Value or a column per metric)",
         file.string(), name);
  };
  c.id = need("ID");
  c.kernel = need("Kernel Name");
  c.stream = need("Stream");
  c.block = column(header, "Block Size");
  c.grid = column(header, "Grid Size");
  c.device = column(header, "Device");
  c.cc = column(header, "CC");
  c.needed = std::max({c.id, c.kernel, c.stream});
  if (column(header, "Metric Name")) {
    c.metric = need("Metric Name");
    c.unit = need("Metric Unit");
    c.value = need("Metric Value");
    c.section = column(header, "Section Name");
    c.rule = column(header, "Rule Name");
    c.rule_type = column(header, "Rule Type");
    c.rule_text = column(header, "Rule Description");
    c.speedup_kind = column(header, "Estimated Speedup Type");
    c.speedup = column(header, "Estimated Speedup");
    c.needed = std::max({c.needed, *c.metric, *c.unit, *c.value});
  } else {
    for (size_t i = 0; i < header.size(); ++i) {
      if (std::find(kLaunchColumns.begin(), kLaunchColumns.end(), header[i]) == kLaunchColumns.end()) c.metrics.push_back(i);
    }
    c.display_name = column(header, "device__attribute_display_name");
  }
  c.header = std::move(header);
  return c;
}

// The details page names a metric by its label in a section. The GPU Speed Of Light section's
// percentages of peak are ncu's own verdict on what binds a launch, and the Occupancy section's
// theoretical occupancy its own figure of ours; they are kept under the raw names the raw page and
// --metrics give them (the labels of ncu's section files), so both pages feed the same counters.
// Other sections reuse the labels in other units ("Memory Throughput" in byte/second), hence the
// section and the unit. The section's clocks too (the roofline puts a launch's peaks at its SM
// clock), in whatever unit of frequency or cycles ncu printed.
std::string metric_name(const std::string& section, const std::string& label, const std::string& unit) {
  static const std::map<std::pair<std::string, std::string>, std::string> percent = {
      {{"GPU Speed Of Light Throughput", "Compute (SM) Throughput"}, "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
      {{"GPU Speed Of Light Throughput", "Memory Throughput"}, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
      {{"GPU Speed Of Light Throughput", "DRAM Throughput"}, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
      {{"Occupancy", "Theoretical Occupancy"}, "sm__maximum_warps_per_active_cycle_pct"}};
  static const std::map<std::pair<std::string, std::string>, std::string> clocks = {
      {{"GPU Speed Of Light Throughput", "SM Frequency"}, "gpc__cycles_elapsed.avg.per_second"},
      {{"GPU Speed Of Light Throughput", "DRAM Frequency"}, "dram__cycles_elapsed.avg.per_second"},
      {{"GPU Speed Of Light Throughput", "Elapsed Cycles"}, "gpc__cycles_elapsed.max"}};
  const auto& raw = unit == "%" ? percent : clocks;
  const auto it = raw.find({section, label});
  return it == raw.end() ? label : it->second;
}

// Every launch of the file, by ID. The details page has a row per launch and metric; the raw page
// a row per launch, after a row of units.
std::map<int64_t, Launch> read_launches(std::istream& in, const fs::path& file) {
  std::map<int64_t, Launch> launches;
  std::optional<Columns> c;
  std::vector<std::string> fields, units;
  size_t line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (!c) {
      if (line.rfind("\"ID\",", 0) != 0) continue;  // ==PROF== lines and the program's output
      c = columns_of(ncu::csv_fields(line), file);
      continue;
    }
    if (line.empty() || line[0] != '"') continue;  // ncu's or the program's lines after the header
    const size_t first_line = line_number;
    bool closed = false;
    fields = ncu::csv_fields(line, &closed);
    while (!closed) {  // a quoted field holds a line end
      std::string more;
      if (!std::getline(in, more)) fail(Errc::bad_input, "{}: line {}: a quoted field is not closed (cut short?)", file.string(), first_line);
      ++line_number;
      line += '\n' + more;
      fields = ncu::csv_fields(line, &closed);
    }
    if (fields.size() <= c->needed) {
      fail(Errc::bad_input, "{}: line {}: {} fields where the header has {}", file.string(), first_line, fields.size(), c->header.size());
    }
    if (!c->metric && launches.empty() && units.empty() && fields[c->id].empty()) {
      units = fields;  // the raw page's units
      continue;
    }
    // A launch's ID: a count from 0, bounded before the cast.
    const auto id = number(fields[c->id]);
    if (!id || *id < 0 || *id > 1e15 || *id != std::floor(*id)) {
      fail(Errc::bad_input, "{}: line {}: ID is '{}', not a number of a launch", file.string(), first_line, fields[c->id]);
    }
    Launch& l = launches[static_cast<int64_t>(*id)];
    if (l.kernel.empty()) {
      l.kernel = fields[c->kernel];
      l.stream = fields[c->stream];
      l.block = triple(c->text(fields, c->block));
      l.grid = triple(c->text(fields, c->grid));
      l.device = c->text(fields, c->device);
      l.cc = c->text(fields, c->cc);
      l.product = c->text(fields, c->display_name);
    }
    if (c->metric) {
      if (!fields[*c->metric].empty()) {
        const std::string& unit = fields[*c->unit];
        l.add(metric_name(c->text(fields, c->section), fields[*c->metric], unit), fields[*c->value], unit);
      } else if (const std::string rule = c->text(fields, c->rule); !rule.empty()) {  // a rule's row
        const auto speedup = number(c->text(fields, c->speedup));
        l.rules.push_back({0, c->text(fields, c->section), rule, c->text(fields, c->rule_type), c->text(fields, c->rule_text),
                           speedup ? c->text(fields, c->speedup_kind) : std::string(), speedup});
      }
    } else {
      for (size_t i : c->metrics) {
        if (i < fields.size()) l.add(c->header[i], fields[i], i < units.size() ? units[i] : std::string());
      }
    }
  }
  if (!c) fail(Errc::bad_input, "{}: no header of Nsight Compute's CSV (\"ID\",\"Process ID\",...) in it", file.string());
  return launches;
}

// An error's message, less the file it begins with: the warning names it once.
std::string without_file(const Error& e, const fs::path& file) {
  std::string why = e.what();
  if (why.rfind(file.string() + ": ", 0) == 0) why.erase(0, file.string().size() + 2);
  return why;
}

// Another page of the same report, by launch ID; none where it cannot be read, with a warning that
// says what is left out (the raw page alone is a whole trace).
std::optional<std::map<int64_t, Launch>> other_page(std::istream& page, const fs::path& file, std::string_view not_read,
                                                    std::string_view left_out, std::vector<std::string>& warnings) {
  try {
    return read_launches(page, file);
  } catch (const Error& e) {
    warnings.push_back(fmt::format("{}: {} ({}): {}", file.string(), not_read, without_file(e, file), left_out));
    return std::nullopt;
  }
}

// The raw page's launch that another page's launch is: the same ID and kernel name.
Launch* same_launch(std::map<int64_t, Launch>& launches, int64_t id, const Launch& other) {
  auto it = launches.find(id);
  return it == launches.end() || it->second.kernel != other.kernel ? nullptr : &it->second;
}

// A report's details page gives its rule rows to the launches of its raw page.
void add_rules(std::map<int64_t, Launch>& launches, std::istream& details, const fs::path& file, std::vector<std::string>& warnings) {
  auto detailed = other_page(details, file, "its details page, as ncu exported it, is not read",
                             "ncu's rules of its launches are left out", warnings);
  if (!detailed) return;
  size_t unmatched = 0;
  for (auto& [id, d] : *detailed) {
    Launch* l = same_launch(launches, id, d);
    if (!l) {
      unmatched += d.rules.empty() ? 0 : 1;
      continue;
    }
    l->rules.insert(l->rules.end(), std::make_move_iterator(d.rules.begin()), std::make_move_iterator(d.rules.end()));
  }
  if (unmatched > 0) {
    warnings.push_back(fmt::format("{}: {} launches of its details page are not those of its raw page (ID and kernel): their rules "
                                   "are left out",
                                   file.string(), unmatched));
  }
}

// Another raw page of a report gives the launches of the first the metrics they lack (with their
// instances).
void add_metrics(std::map<int64_t, Launch>& launches, std::istream& page, const fs::path& file, std::vector<std::string>& warnings) {
  const auto more = other_page(page, file, "its instructions by opcode, as ncu exported them, are not read", "no instruction mix",
                               warnings);
  if (!more) return;
  for (const auto& [id, m] : *more) {
    Launch* l = same_launch(launches, id, m);
    if (!l) continue;
    for (const auto& name : m.order) {
      if (l->metrics.emplace(name, m.metrics.at(name)).second) l->order.push_back(name);
    }
  }
}

// A launch's duration in nanoseconds: ncu's own (gpu__time_duration.sum, the details page's
// Duration), else a unit's elapsed cycles over their rate, as --metrics lists often give it
// (the roofline recipes' sm__cycles_elapsed.avg and .avg.per_second): ncu divides a count by the
// duration for its .per_second, so the quotient is the duration itself.
std::optional<double> duration_ns(const Launch& l) {
  if (auto ns = l.metric({"gpu__time_duration.sum", "Duration"})) return ns;
  for (const char* unit : {"gpc", "sm", "smsp", "dram", "lts", "l1tex"}) {
    const std::string cycles = std::string(unit) + "__cycles_elapsed.avg";
    const auto count = l.metric({cycles.c_str()}), rate = l.metric({(cycles + ".per_second").c_str()});
    if (count && rate && *rate > 0) return std::round(*count / *rate * 1e9);
  }
  return std::nullopt;
}

// The compute capability: the CC column's ("10.0"), else the raw page's device attributes.
std::string compute_capability(const Launch& l) {
  if (!l.cc.empty()) return l.cc;
  const auto major = l.metric({"device__attribute_compute_capability_major"}), minor = l.metric({"device__attribute_compute_capability_minor"});
  return major && minor ? fmt::format("{:g}.{:g}", *major, *minor) : std::string();
}

// "10.0" -> sm_100, "8.6" -> sm_86.
std::string architecture(const std::string& cc) {
  const auto dot = cc.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= cc.size()) return "";
  return "sm_" + cc.substr(0, dot) + cc.substr(dot + 1);
}

}  // namespace

void read_ncu_csv_into(Trace& trace, const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(Errc::bad_input, "{}: cannot be read", file.string());
  read_ncu_csv_into(trace, in, file);
}

void read_ncu_csv_into(Trace& trace, std::istream& csv, const fs::path& file, std::istream* details, std::istream* opcodes) {
  auto launches = read_launches(csv, file);
  if (launches.empty()) fail(Errc::bad_input, "{}: Nsight Compute's CSV of no kernel launch (its ==PROF== lines may say why)", file.string());
  if (details) add_rules(launches, *details, file, trace.warnings);
  if (opcodes) add_metrics(launches, *opcodes, file, trace.warnings);
  const auto source = static_cast<int16_t>(trace.sources.size());
  if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", file.string());
  const std::string guid = file.stem().string();
  trace.sources.push_back({});
  trace.sources.back().path = file.string();
  trace.sources.back().guids = {guid};
  trace.sources.back().laid_end_to_end = true;

  const size_t first_agent = trace.agents.size();
  std::map<std::pair<std::string, std::string>, int16_t> agents;  // (device, CC) -> index
  auto agent_of = [&](const Launch& l) -> int16_t {
    const std::string cc = compute_capability(l);
    auto [it, added] = agents.try_emplace({l.device, cc}, static_cast<int16_t>(trace.agents.size()));
    if (added) {
      Agent a;
      a.source = source;
      a.guid = guid;
      a.id = static_cast<int64_t>(number(l.device).value_or(0));
      a.type = "GPU";
      a.vendor_name = "NVIDIA";
      a.name = architecture(cc);  // none without a CC column: the GPU is not known
      a.product_name = l.product;
      if (!a.name.empty()) a.wave_size = 32;
      if (const int sms = bounded<int>(l.metric({"# SMs", "launch__sm_count", "device__attribute_multiprocessor_count"}), 0)) a.compute_units = sms;
      // The raw page's device attributes, in kHz and bits, as the CUPTI tracer reads them: the
      // clock and the peak DRAM bandwidth (two transfers per memory clock) the roofline needs.
      if (const auto khz = l.metric({"device__attribute_max_gpu_frequency_khz", "device__attribute_clock_rate"}); khz && *khz > 0) {
        a.max_clock_mhz = *khz / 1e3;
      }
      const auto memory_khz = l.metric({"device__attribute_memory_clock_rate"});
      const auto bus_bits = l.metric({"device__attribute_global_memory_bus_width"});
      if (memory_khz && bus_bits && *memory_khz > 0 && *bus_bits > 0) {
        if (const double peak = 2.0 * *memory_khz * 1e3 * *bus_bits / 8.0; std::isfinite(peak)) a.dram_bytes_per_s = peak;
      }
      trace.agents.push_back(std::move(a));
    }
    return it->second;
  };
  std::unordered_map<std::string, uint32_t> counters;
  auto counter_of = [&](const std::string& name) {
    auto [it, added] = counters.try_emplace(name, static_cast<uint32_t>(trace.counter_names.size()));
    if (added) trace.counter_names.push_back(name);
    return it->second;
  };
  auto index = detail::index_of(trace.geometries);
  detail::GeometryTable geometries(trace.geometries, &index);
  detail::SymbolsByName symbols(trace, source, guid);
  int64_t at = 0;
  size_t untimed = 0;
  bool registers = false, geometry = false;
  for (const auto& [id, l] : launches) {
    const int64_t duration = bounded<int64_t>(duration_ns(l), 0);
    if (duration <= 0) {
      ++untimed;
      continue;
    }
    const auto regs = l.metric({"Registers Per Thread", "launch__registers_per_thread"});
    const auto static_smem = l.metric({"Static Shared Memory Per Block", "launch__shared_mem_per_block_static"});
    const auto dynamic_smem = l.metric({"Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic"});
    const auto barriers = l.metric({"launch__barrier_count"});
    registers = registers || regs.has_value();
    const auto block_total = l.metric({"Block Size", "launch__block_size"}), grid_total = l.metric({"Grid Size", "launch__grid_size"});
    geometry = geometry || l.block || block_total;
    Dispatch d{};
    d.id = id;
    d.start_ns = at;
    if (__builtin_add_overflow(at, duration, &d.end_ns)) {
      fail(Errc::bad_input, "{}: launch {}: the durations add up past what a clock of nanoseconds holds", file.string(), id);
    }
    at = d.end_ns;
    d.stream_id = d.queue_id = static_cast<int64_t>(number(l.stream).value_or(0));
    d.agent = agent_of(l);
    d.source = source;
    d.symbol = symbols.intern(l.kernel, [&](KernelSymbol& k) {
      // Exported with --print-kernel-base mangled (as profile's own counter pass does): shown demangled.
      if (const auto demangled = demangle(l.kernel); demangled != l.kernel) k.display_name = demangled;
      k.arch_vgpr_count = bounded<int64_t>(regs, 0);
      k.registers_known = regs.has_value();
      k.group_segment_size = bounded<uint32_t>(static_smem, 0);
      k.lds_split_known = static_smem && dynamic_smem;
      if (barriers) k.barriers = bounded<int>(barriers, 1);
    });
    DispatchGeometry g;
    const auto block = l.block ? *l.block : std::array<uint64_t, 3>{std::max<uint64_t>(1, bounded<uint32_t>(block_total, 1)), 1, 1};
    const auto grid = l.grid ? *l.grid : std::array<uint64_t, 3>{std::max<uint64_t>(1, bounded<uint32_t>(grid_total, 1)), 1, 1};
    for (size_t i = 0; i < 3; ++i) {
      g.workgroup[i] = static_cast<uint32_t>(block[i]);
      g.grid[i] = grid[i] * block[i];  // blocks, as CUDA counts them; work-items, as the model does
    }
    g.group_segment_size = bounded<uint32_t>(static_smem.value_or(0) + dynamic_smem.value_or(0), 0);
    d.geometry = geometries.intern(g);
    const auto dispatch = static_cast<uint32_t>(trace.dispatches.size());
    trace.dispatches.push_back(d);
    for (const auto& name : l.order) {
      if (name.find("__") != std::string::npos) trace.counter_values.push_back({dispatch, counter_of(name), l.metrics.at(name)});
    }
    for (auto finding : l.rules) {
      finding.dispatch = dispatch;
      trace.findings.push_back(std::move(finding));
    }
  }
  if (untimed == launches.size()) {
    fail(Errc::bad_input, "{}: no kernel launch in it has a duration: ncu collected neither its GPU Speed Of Light section nor "
                          "gpu__time_duration.sum (nor a unit's elapsed cycles with their rate); profile with --section SpeedOfLight "
                          "(in ncu's default set) or add gpu__time_duration.sum to --metrics",
         file.string());
  }
  const std::string name = file.string();
  trace.warnings.push_back(fmt::format("{}: Nsight Compute profiles each kernel launch alone, replaying it for its metrics with the GPU's "
                                       "clocks locked to base unless told otherwise: the times are of launches run one at a time, laid "
                                       "end to end here, with no copies, API calls or streams that overlap",
                                       name));
  if (untimed > 0) {
    trace.warnings.push_back(fmt::format("{}: {} of {} kernel launches have no duration (neither the GPU Speed Of Light section nor "
                                         "gpu__time_duration.sum, nor elapsed cycles with their rate) and are left out",
                                         name, untimed, launches.size()));
  }
  if (std::any_of(trace.agents.begin() + first_agent, trace.agents.end(), [](const Agent& a) { return a.name.empty(); })) {
    trace.warnings.push_back(fmt::format("{}: this layout of ncu's CSV has no CC column: {} (no occupancy, no peaks)", name, kGpuNotKnown));
  }
  if (!geometry) {
    trace.warnings.push_back(fmt::format("{}: no launch statistics (grid and block sizes, registers, shared memory): the grid and block "
                                         "are shown as 1 and occupancy is not computed; profile with --section LaunchStats",
                                         name));
  } else if (!registers) {
    trace.warnings.push_back(fmt::format("{}: no registers per thread (ncu's Launch Statistics section): occupancy is not computed; "
                                         "profile with --section LaunchStats",
                                         name));
  }
}

}  // namespace rpl::trace
