#include <rpl/trace/rocpd_reader.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>

#include "geometry_table.hpp"
#include "host_call_names.hpp"
#include "rocpd_dispatches.hpp"
#include "rocpd_hip_api.hpp"
#include "rocpd_tables.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;

namespace detail {

std::set<std::string> columns_of(SQLite::Database& db, const std::string& quoted_table) {
  std::set<std::string> cols;
  SQLite::Statement st(db, "PRAGMA table_info(" + quoted_table + ")");
  while (st.executeStep()) cols.insert(st.getColumn(1).getString());
  return cols;
}

std::string column_or(const std::set<std::string>& cols, const std::string& col, const std::string& fallback) {
  return cols.count(col) ? "\"" + col + "\"" : fallback;
}

}  // namespace detail

namespace {
using detail::column_or;
using detail::columns_of;
using detail::GeometryIndex;
using detail::GeometryTable;
using detail::IdMap;
using detail::TableSet;
using detail::text_or_empty;

void require_columns(const std::set<std::string>& cols, std::initializer_list<const char*> needed,
                     const fs::path& file, const std::string& table) {
  for (const char* col : needed) {
    if (!cols.count(col)) {
      fail(Errc::bad_input, "{}: table {} has no column \"{}\"; not a rocpd v3 database this reader knows",
           file.string(), table, col);
    }
  }
}

void check_sqlite_header(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) fail(Errc::bad_input, "{}: no such file", file.string());
  if (fs::is_directory(file, ec)) fail(Errc::bad_input, "{}: is a directory, not a rocpd database", file.string());
  auto size = fs::file_size(file, ec);
  if (ec) fail(Errc::bad_input, "{}: cannot read: {}", file.string(), ec.message());
  if (size == 0) fail(Errc::bad_input, "{}: empty file, not a rocpd database", file.string());
  std::ifstream in(file, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  if (!in || std::memcmp(header, "SQLite format 3", 16) != 0) {
    fail(Errc::bad_input, "{}: not a SQLite database (rocpd traces are SQLite files)", file.string());
  }
}

// The suffix of a dispatch table's name ("" or "_<uuid>"), matching rocpd_kernel_dispatch(_[0-9A-Za-z_]+)?
// by hand: std::regex recurses per character, and a table name may be as long as the file.
std::optional<std::string> dispatch_table_suffix(const std::string& name) {
  constexpr std::string_view base = "rocpd_kernel_dispatch";
  if (name.compare(0, base.size(), base) != 0) return std::nullopt;
  const std::string suffix = name.substr(base.size());
  if (suffix.empty()) return suffix;
  const bool word = std::all_of(suffix.begin() + 1, suffix.end(),
                                [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (suffix[0] != '_' || suffix.size() < 2 || !word) return std::nullopt;
  return suffix;
}

std::vector<TableSet> find_table_sets(SQLite::Database& db, const fs::path& file) {
  std::vector<std::pair<std::string, std::string>> objects;  // name, type
  SQLite::Statement st(db, "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name");
  while (st.executeStep()) objects.emplace_back(st.getColumn(0).getString(), st.getColumn(1).getString());

  std::vector<TableSet> sets;
  for (const auto& [name, type] : objects) {
    if (type != "table") continue;
    if (auto suffix = dispatch_table_suffix(name)) sets.push_back({*suffix, {}});
  }
  if (sets.empty()) {
    // No suffixed tables: a database of views only (e.g. merged by a tool) still reads through them.
    for (const auto& [name, type] : objects) {
      if (name == "rocpd_kernel_dispatch") sets.push_back({"", {}});
    }
  }
  if (sets.empty()) {
    fail(Errc::bad_input, "{}: no rocpd tables (no rocpd_kernel_dispatch table); is it a rocprofv3 --output-format rocpd database?",
         file.string());
  }
  for (auto& set : sets) {
    for (const auto& [name, type] : objects) {
      if (name.rfind("rocpd_", 0) == 0 && name.size() >= set.suffix.size() &&
          name.compare(name.size() - set.suffix.size(), set.suffix.size(), set.suffix) == 0) {
        set.names.insert(name);
      }
    }
  }
  return sets;
}

std::optional<int> json_int(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return static_cast<int>(it->get<double>());
}

std::optional<double> json_double(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

class FileReader {
 public:
  FileReader(Trace& trace, const fs::path& file, SQLite::Database& db, const ReadOptions& options)
      : trace_(trace), file_(file), db_(db), options_(options), source_(static_cast<int16_t>(trace.sources.size())) {
    if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files (at most {})", file.string(), INT16_MAX);
    trace::Source source;
    source.path = file.string();
    trace_.sources.push_back(std::move(source));
    geometry_index_ = detail::index_of(trace_.geometries);
  }

  void read(const TableSet& set) {
    read_metadata(set);
    read_host(set);
    if (set.has("info_agent")) read_agents(set);
    if (!set.has("info_kernel_symbol")) {
      fail(Errc::bad_input, "{}: rocpd_info_kernel_symbol{} is missing; cannot name the kernels", file_.string(), set.suffix);
    }
    read_symbols(set);
    // Correlation ids order work only against event operations and stream kinds: read only where
    // there are some.
    const bool events = set.has("event_operation") && read_event_operations(set) > 0;
    // rocprofv3's own databases leave rocpd_event_operation empty; its HIP API trace has the calls.
    const bool hip_events = !events && detail::has_hip_event_calls(db_, set);
    const bool streams = set.has("info_stream") && read_stream_kinds(set) > 0;
    const bool graphs = set.has("metadata") && read_graph_dependencies(set) > 0;
    const bool ordered = events || hip_events || streams || graphs;
    const size_t first_dispatch = trace_.dispatches.size(), first_copy = trace_.memory_copies.size();
    read_dispatches(set, ordered);
    if (set.has("memory_copy")) read_memory_copies(set, ordered);
    if (graphs) {
      read_graph_nodes(set, "kernel_dispatch", false, first_dispatch, trace_.dispatches.size());
      if (set.has("memory_copy")) read_graph_nodes(set, "memory_copy", true, first_copy, trace_.memory_copies.size());
    }
    if (hip_events) {
      std::vector<detail::EnqueuedWork> work;
      for (size_t i = first_dispatch; i < trace_.dispatches.size(); ++i) {
        const auto& d = trace_.dispatches[i];
        work.push_back({d.agent >= 0 ? trace_.agents[static_cast<size_t>(d.agent)].guid : std::string(), d.correlation_id, d.stream_id});
      }
      for (size_t i = first_copy; i < trace_.memory_copies.size(); ++i) {
        const auto& c = trace_.memory_copies[i];
        work.push_back({c.guid, c.correlation_id, c.stream_id});
      }
      detail::read_hip_event_operations(db_, set, source_, work, trace_);
    }
    if (set.has("pmc_event") && set.has("info_pmc")) read_counters(set, first_dispatch);
    if (options_.host_calls && set.has("region")) read_host_calls(set);
  }

 private:
  void note_guid(const std::string& guid) {
    auto& guids = trace_.sources[source_].guids;
    if (std::find(guids.begin(), guids.end(), guid) == guids.end()) guids.push_back(guid);
  }

  // The host of the file's processes (one node per file, as rocprofv3 and the tracer write them).
  void read_host(const TableSet& set) {
    if (!set.has("info_node") || !columns_of(db_, set.name("info_node")).count("hostname")) return;
    SQLite::Statement st(db_, "SELECT hostname FROM " + set.name("info_node") + " ORDER BY id LIMIT 1");
    if (st.executeStep()) trace_.sources[source_].host = text_or_empty(st.getColumn(0));
  }

  void read_metadata(const TableSet& set) {
    if (!set.has("metadata")) return;
    auto cols = columns_of(db_, set.name("metadata"));
    if (!cols.count("tag") || !cols.count("value")) return;
    SQLite::Statement st(db_, "SELECT tag, value FROM " + set.name("metadata") +
                                  " WHERE tag IN ('schema_version', 'rpl_dropped_records', 'rpl_trace_level', 'rpl_rank') ORDER BY id");
    while (st.executeStep()) {
      const std::string tag = text_or_empty(st.getColumn(0)), value = text_or_empty(st.getColumn(1));
      if (tag == "schema_version" && !value.empty() && value[0] != '3') {
        trace_.warnings.push_back(fmt::format("{}: rocpd schema_version {} (this reader expects 3)", file_.string(), value));
      }
      if (tag == "rpl_trace_level") trace_.sources[source_].trace_level = value;
      if (tag == "rpl_rank") {
        int rank = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), rank);
        if (error == std::errc() && end == value.data() + value.size() && rank >= 0) trace_.sources[source_].rank = rank;
      }
      // Written by rocm-perf's CUPTI tracer when its activity buffers overflowed.
      if (tag == "rpl_dropped_records" && value != "0") {
        trace_.warnings.push_back(fmt::format("{}: the tracer dropped {} activity records; timings may miss dispatches",
                                              file_.string(), value));
      }
    }
  }

  void read_agents(const TableSet& set) {
    const std::string table = set.name("info_agent");
    auto cols = columns_of(db_, table);
    require_columns(cols, {"id"}, file_, table);
    SQLite::Statement st(db_, "SELECT " + column_or(cols, "guid", "''") + ", id, " + column_or(cols, "type", "'GPU'") +
                                  ", " + column_or(cols, "name", "''") + ", " + column_or(cols, "vendor_name", "''") + ", " +
                                  column_or(cols, "product_name", "''") + ", " + column_or(cols, "extdata", "'{}'") +
                                  " FROM " + table);
    while (st.executeStep()) {
      Agent a;
      a.source = source_;
      a.guid = text_or_empty(st.getColumn(0));
      a.id = st.getColumn(1).getInt64();
      a.type = text_or_empty(st.getColumn(2));
      a.name = text_or_empty(st.getColumn(3));
      a.vendor_name = text_or_empty(st.getColumn(4));
      a.product_name = text_or_empty(st.getColumn(5));
      auto ext = nlohmann::json::parse(text_or_empty(st.getColumn(6)), nullptr, false);
      if (ext.is_discarded()) {
        trace_.warnings.push_back(fmt::format("{}: agent {} has extdata that is not JSON; its properties are unknown",
                                              file_.string(), a.id));
      } else if (ext.is_object()) {
        a.compute_units = json_int(ext, "cu_count");
        a.simds_per_cu = json_int(ext, "simd_per_cu");
        a.wave_size = json_int(ext, "wave_front_size");
        a.max_waves_per_cu = json_int(ext, "max_waves_per_cu");
        a.max_clock_mhz = json_double(ext, "max_engine_clk_fcompute");
        a.lds_kib = json_int(ext, "lds_size_in_kb");
        // Double data rate: two transfers per memory clock.
        auto memory_khz = json_double(ext, "memory_clock_khz");
        auto bus_bits = json_int(ext, "memory_bus_width_bits");
        if (memory_khz && bus_bits && *memory_khz > 0 && *bus_bits > 0) {
          a.dram_bytes_per_s = 2.0 * *memory_khz * 1e3 * *bus_bits / 8.0;
        }
        if (a.product_name.empty() && ext.contains("product_name") && ext["product_name"].is_string()) {
          a.product_name = ext["product_name"].get<std::string>();
        }
      }
      note_guid(a.guid);
      if (trace_.agents.size() >= INT16_MAX) fail(Errc::bad_input, "{}: more than {} agents", file_.string(), INT16_MAX);
      agents_.add(a.guid, a.id, static_cast<int32_t>(trace_.agents.size()));
      trace_.agents.push_back(std::move(a));
    }
  }

  void read_symbols(const TableSet& set) {
    const std::string table = set.name("info_kernel_symbol");
    auto cols = columns_of(db_, table);
    require_columns(cols, {"id"}, file_, table);
    if (!cols.count("kernel_name") && !cols.count("display_name")) {
      fail(Errc::bad_input, "{}: table {} has neither kernel_name nor display_name", file_.string(), table);
    }
    SQLite::Statement st(db_, "SELECT " + column_or(cols, "guid", "''") + ", id, " + column_or(cols, "kernel_name", "NULL") +
                                  ", " + column_or(cols, "display_name", "NULL") + ", " +
                                  column_or(cols, "arch_vgpr_count", "0") + ", " + column_or(cols, "accum_vgpr_count", "0") +
                                  ", " + column_or(cols, "sgpr_count", "0") + ", " + column_or(cols, "group_segment_size", "0") +
                                  ", " + column_or(cols, "private_segment_size", "0") + ", " +
                                  column_or(cols, "kernarg_segment_size", "0") + " FROM " + table);
    while (st.executeStep()) {
      KernelSymbol k;
      k.source = source_;
      k.guid = text_or_empty(st.getColumn(0));
      k.id = st.getColumn(1).getInt64();
      k.mangled_name = text_or_empty(st.getColumn(2));
      k.display_name = text_or_empty(st.getColumn(3));
      k.arch_vgpr_count = st.getColumn(4).getInt64();
      k.accum_vgpr_count = st.getColumn(5).getInt64();
      k.sgpr_count = st.getColumn(6).getInt64();
      k.group_segment_size = st.getColumn(7).getInt64();
      k.private_segment_size = st.getColumn(8).getInt64();
      k.kernarg_segment_size = st.getColumn(9).getInt64();
      if (k.mangled_name.empty() && k.display_name.empty()) k.display_name = fmt::format("<kernel {}>", k.id);
      if (k.arch_vgpr_count < 0 || k.accum_vgpr_count < 0 || k.sgpr_count < 0 || k.group_segment_size < 0 ||
          k.private_segment_size < 0) {
        fail(Errc::bad_input, "{}: kernel symbol {} has a negative register or segment size; the database is corrupt",
             file_.string(), k.id);
      }
      note_guid(k.guid);
      symbols_.add(k.guid, k.id, static_cast<int32_t>(trace_.symbols.size()));
      trace_.symbols.push_back(std::move(k));
    }
  }

  int32_t unknown_symbol(const std::string& guid, int64_t kernel_id) {
    int32_t index = symbols_.find(guid, kernel_id);
    if (index >= 0) return index;
    KernelSymbol k;
    k.source = source_;
    k.guid = guid;
    k.id = kernel_id;
    k.display_name = fmt::format("<unknown kernel {}>", kernel_id);
    index = static_cast<int32_t>(trace_.symbols.size());
    symbols_.add(guid, kernel_id, index);
    trace_.symbols.push_back(std::move(k));
    trace_.warnings.push_back(
        fmt::format("{}: dispatches name kernel id {} that rocpd_info_kernel_symbol does not list", file_.string(), kernel_id));
    return index;
  }

  // The enqueue order of a dispatch or copy row (docs/dependencies.md): the stack_id of its
  // rocpd_event row (rocprofv3's internal correlation id), else extdata's correlation_id (the CUPTI
  // tracer, which writes no event rows).
  std::string correlation_expr(const TableSet& set, const std::set<std::string>& cols, const std::string& row) {
    std::string expr = "COALESCE(";
    if (cols.count("event_id") && set.has("event")) {
      expr += "(SELECT e.stack_id FROM " + set.name("event") + " e WHERE e.id = " + row + ".event_id), ";
    }
    if (cols.count("extdata")) expr += "json_extract(" + row + ".extdata, '$.correlation_id'), ";
    return expr + "0)";
  }

  // Counter values joined to their dispatch through the event row, as rocprofv3 links them.
  void read_counters(const TableSet& set, size_t first_dispatch) {
    auto dispatch_cols = columns_of(db_, set.name("kernel_dispatch"));
    auto pmc_cols = columns_of(db_, set.name("info_pmc"));
    auto value_cols = columns_of(db_, set.name("pmc_event"));
    if (!dispatch_cols.count("event_id") || !pmc_cols.count("name") || !value_cols.count("event_id") ||
        !value_cols.count("pmc_id") || !value_cols.count("value")) {
      return;
    }
    SQLite::Statement st(db_, "SELECT d." + column_or(dispatch_cols, "id", "rowid") + ", p.name, sum(e.value) FROM " +
                                  set.name("pmc_event") + " e JOIN " + set.name("info_pmc") + " p ON p.id = e.pmc_id JOIN " +
                                  set.name("kernel_dispatch") + " d ON d.event_id = e.event_id GROUP BY d." +
                                  column_or(dispatch_cols, "id", "rowid") + ", p.name");
    std::unordered_map<int64_t, uint32_t> index;
    std::unordered_map<std::string, uint32_t> counters;
    for (uint32_t i = 0; i < trace_.counter_names.size(); ++i) counters.emplace(trace_.counter_names[i], i);
    const size_t first_value = trace_.counter_values.size();
    while (st.executeStep()) {
      if (index.empty()) {
        for (size_t i = first_dispatch; i < trace_.dispatches.size(); ++i) {
          index.emplace(trace_.dispatches[i].id, static_cast<uint32_t>(i));
        }
      }
      auto d = index.find(st.getColumn(0).getInt64());
      if (d == index.end()) continue;
      auto [c, added] = counters.try_emplace(text_or_empty(st.getColumn(1)), static_cast<uint32_t>(counters.size()));
      if (added) trace_.counter_names.push_back(c->first);
      trace_.counter_values.push_back({d->second, c->second, st.getColumn(2).getDouble()});
    }
    std::sort(trace_.counter_values.begin() + static_cast<std::ptrdiff_t>(first_value), trace_.counter_values.end(),
              [](const CounterValue& a, const CounterValue& b) {
                return a.dispatch != b.dispatch ? a.dispatch < b.dispatch : a.counter < b.counter;
              });
  }

  void read_host_calls(const TableSet& set) {
    const std::string table = set.name("region");
    const auto cols = columns_of(db_, table);
    if (!cols.count("start") || !cols.count("end") || !cols.count("name_id")) return;
    const std::string name = set.has("string") ? "(SELECT s.string FROM " + set.name("string") + " s WHERE s.id = r.name_id)" : "''";
    SQLite::Statement st(db_, "SELECT " + std::string(cols.count("guid") ? "r.guid" : "''") + ", " +
                                  std::string(cols.count("tid") ? "r.tid" : "0") + ", r.start, r.\"end\", " + name + " FROM " +
                                  table + " r ORDER BY r.rowid");
    detail::HostCallNames names(trace_);
    while (st.executeStep()) {
      HostCall call;
      call.source = source_;
      call.guid = text_or_empty(st.getColumn(0));
      call.tid = st.getColumn(1).getInt64();
      call.start_ns = st.getColumn(2).getInt64();
      call.end_ns = st.getColumn(3).getInt64();
      call.name = names.intern(text_or_empty(st.getColumn(4)));
      trace_.host_calls.push_back(std::move(call));
    }
  }

  // The CUDA Graph edges the CUPTI tracer records as metadata rows.
  size_t read_graph_dependencies(const TableSet& set) {
    auto cols = columns_of(db_, set.name("metadata"));
    if (!cols.count("tag") || !cols.count("value")) return 0;
    SQLite::Statement st(db_, "SELECT value FROM " + set.name("metadata") + " WHERE tag = 'rpl_graph_dependency'");
    size_t read = 0;
    while (st.executeStep()) {
      const auto j = nlohmann::json::parse(text_or_empty(st.getColumn(0)), nullptr, false);
      auto unsigned_at = [&](const char* key) -> std::optional<uint64_t> {
        if (!j.is_object() || !j.contains(key) || !j[key].is_number_unsigned()) return std::nullopt;
        return j[key].get<uint64_t>();
      };
      const auto graph = unsigned_at("graph"), from = unsigned_at("from"), to = unsigned_at("to");
      if (!graph || !from || !to || *graph > UINT32_MAX) continue;
      trace_.graph_dependencies.push_back({source_, static_cast<uint32_t>(*graph), *from, *to});
      ++read;
    }
    return read;
  }

  // The graph and node of each dispatch or copy that ran in a graph launch (extdata), matched to the
  // rows in the order they were read (rowid order, from `first`).
  void read_graph_nodes(const TableSet& set, const std::string& base, bool copy, size_t first, size_t end) {
    const std::string table = set.name(base);
    if (!columns_of(db_, table).count("extdata")) return;
    SQLite::Statement st(db_, "SELECT CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.graph_id') END, "
                              "CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.graph_node_id') END FROM " + table);
    for (size_t i = first; st.executeStep() && i < end; ++i) {
      if (st.getColumn(0).isNull() || st.getColumn(1).isNull()) continue;
      const int64_t graph = st.getColumn(0).getInt64(), node = st.getColumn(1).getInt64();
      if (graph <= 0 || graph > UINT32_MAX || node < 0) continue;
      trace_.graph_nodes.push_back({copy, static_cast<uint32_t>(i), static_cast<uint32_t>(graph), static_cast<uint64_t>(node)});
    }
  }

  // The sync kinds the CUPTI tracer records in rocpd_info_stream.extdata; other rows are skipped.
  size_t read_stream_kinds(const TableSet& set) {
    const std::string table = set.name("info_stream");
    auto cols = columns_of(db_, table);
    if (!cols.count("extdata") || !cols.count("id")) return 0;
    SQLite::Statement st(db_, "SELECT " + column_or(cols, "guid", "''") + ", id, extdata FROM " + table + " ORDER BY id");
    size_t read = 0;
    while (st.executeStep()) {
      const auto extdata = nlohmann::json::parse(text_or_empty(st.getColumn(2)), nullptr, false);
      if (!extdata.is_object() || !extdata.contains("sync") || !extdata["sync"].is_string()) continue;
      const auto sync = stream_sync_kind(extdata["sync"].get<std::string>());
      if (!sync || *sync == StreamSync::unknown) continue;
      StreamInfo info;
      info.source = source_;
      info.guid = text_or_empty(st.getColumn(0));
      info.stream_id = st.getColumn(1).getInt64();
      info.context = extdata.contains("context") && extdata["context"].is_number_integer() ? extdata["context"].get<int64_t>() : 0;
      info.sync = *sync;
      trace_.streams.push_back(std::move(info));
      ++read;
    }
    return read;
  }

  size_t read_event_operations(const TableSet& set) {
    const std::string table = set.name("event_operation");
    auto cols = columns_of(db_, table);
    if (!cols.count("type_id") || !set.has("string")) return 0;
    SQLite::Statement st(db_, "SELECT " + column_or(cols, "guid", "''") + ", (SELECT s.string FROM " +
                                  set.name("string") + " s WHERE s.id = o.type_id), " +
                                  column_or(cols, "event_obj", "0") + ", " + column_or(cols, "issue_id", "0") + ", " +
                                  column_or(cols, "stream_id", "0") + ", " + column_or(cols, "start", "0") + ", " +
                                  column_or(cols, "end", "0") + " FROM " + table + " o" +
                                  (cols.count("id") ? " ORDER BY o.id" : ""));
    size_t read = 0, unknown = 0;
    std::string first_unknown;
    while (st.executeStep()) {
      const std::string name = text_or_empty(st.getColumn(1));
      auto kind = event_operation_kind(name);
      if (!kind) {
        if (unknown++ == 0) first_unknown = name;
        continue;
      }
      EventOperation op;
      op.source = source_;
      op.guid = text_or_empty(st.getColumn(0));
      op.kind = *kind;
      op.event = st.getColumn(2).getInt64();
      op.correlation_id = st.getColumn(3).getInt64();
      op.stream_id = st.getColumn(4).getInt64();
      op.start_ns = st.getColumn(5).getInt64();
      op.end_ns = st.getColumn(6).getInt64();
      trace_.event_operations.push_back(std::move(op));
      ++read;
    }
    if (unknown > 0) {
      trace_.warnings.push_back(fmt::format("{}: {} event operations of a kind this reader does not know (first: \"{}\");"
                                            " they add no dependency",
                                            file_.string(), unknown, first_unknown));
    }
    return read;
  }

  void read_dispatches(const TableSet& set, bool ordered) {
    const std::string table = set.name("kernel_dispatch");
    auto cols = columns_of(db_, table);
    require_columns(cols, {"kernel_id", "start", "end"}, file_, table);
    const detail::DispatchTable dispatches{file_, table, cols, ordered ? correlation_expr(set, cols, table) : "0",
                                           set.names.count("rocpd_kernel_dispatch" + set.suffix) != 0, source_, symbols_, agents_};
    for (auto& chunk : detail::read_dispatch_table(db_, dispatches, trace_.dispatches)) adopt(chunk);
  }

 private:
  // Adds what a chunk found to the trace: its GUIDs, geometries, unknown kernels and warnings.
  void adopt(detail::DispatchChunk& chunk) {
    for (const auto& [guid, first] : chunk.guid_runs) note_guid(guid);
    std::vector<uint32_t> global(chunk.geometries.size());
    GeometryTable table(trace_.geometries, &geometry_index_);
    for (size_t i = 0; i < chunk.geometries.size(); ++i) global[i] = table.intern(chunk.geometries[i]);
    Dispatch* rows = trace_.dispatches.data() + chunk.offset;
    for (size_t i = 0; i < chunk.count; ++i) rows[i].geometry = global[rows[i].geometry];
    for (const auto& [row, kernel_id] : chunk.unknown_kernels) {
      auto run = std::upper_bound(chunk.guid_runs.begin(), chunk.guid_runs.end(), row,
                                  [](size_t r, const auto& g) { return r < g.second; });
      rows[row].symbol = unknown_symbol(std::prev(run)->first, kernel_id);
    }
    if (chunk.bad_times > 0) {
      trace_.warnings.push_back(fmt::format("{}: {} dispatches end before they start; their duration is taken as 0",
                                            file_.string(), chunk.bad_times));
    }
  }

  void read_memory_copies(const TableSet& set, bool ordered) {
    const std::string table = set.name("memory_copy");
    auto cols = columns_of(db_, table);
    if (!cols.count("start") || !cols.count("end")) return;
    const bool has_strings = set.has("string");
    std::string name_expr = "''";
    if (has_strings && cols.count("name_id")) {
      name_expr = "(SELECT s.string FROM " + set.name("string") + " s WHERE s.id = c.name_id)";
    }
    SQLite::Statement st(db_, "SELECT " + column_or(cols, "id", "rowid") + ", \"start\", \"end\", " +
                                  column_or(cols, "size", "0") + ", " + name_expr + ", " +
                                  column_or(cols, "src_agent_id", "0") + ", " + column_or(cols, "dst_agent_id", "0") + ", " +
                                  column_or(cols, "queue_id", "0") + ", " + column_or(cols, "stream_id", "0") + ", " +
                                  column_or(cols, "guid", "''") + ", " +
                                  (ordered ? correlation_expr(set, cols, "c") : "0") + " FROM " + table + " c");
    while (st.executeStep()) {
      MemoryCopy c;
      c.source = source_;
      c.id = st.getColumn(0).getInt64();
      c.start_ns = st.getColumn(1).getInt64();
      c.end_ns = st.getColumn(2).getInt64();
      c.size = st.getColumn(3).getInt64();
      c.name = text_or_empty(st.getColumn(4));
      c.src_agent_id = st.getColumn(5).getInt64();
      c.dst_agent_id = st.getColumn(6).getInt64();
      c.queue_id = st.getColumn(7).getInt64();
      c.stream_id = st.getColumn(8).getInt64();
      c.guid = text_or_empty(st.getColumn(9));
      c.correlation_id = st.getColumn(10).getInt64();
      trace_.memory_copies.push_back(std::move(c));
    }
  }

  Trace& trace_;
  const fs::path& file_;
  SQLite::Database& db_;
  const ReadOptions& options_;
  int16_t source_;
  IdMap agents_;
  IdMap symbols_;
  GeometryIndex geometry_index_;
};

}  // namespace

void read_rocpd_into(Trace& trace, const fs::path& file, const ReadOptions& options) {
  check_sqlite_header(file);
  try {
    // One thread reads: no need for SQLite's per-call mutex.
    SQLite::Database db(file.string(), SQLite::OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
    auto sets = find_table_sets(db, file);
    FileReader reader(trace, file, db, options);
    for (const auto& set : sets) reader.read(set);
  } catch (const SQLite::Exception& e) {
    fail(Errc::bad_input, "{}: unreadable rocpd database (truncated or corrupt?): {}", file.string(), e.what());
  }
}

Trace read_rocpd(const std::vector<fs::path>& files, const ReadOptions& options) {
  Trace trace;
  for (const auto& file : files) read_rocpd_into(trace, file, options);
  return trace;
}

}  // namespace rpl::trace
