#include "rocpd_dispatches.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include <sqlite3.h>

#include <rpl/core/error.hpp>

#include "geometry_table.hpp"
#include "rocpd_tables.hpp"

namespace rpl::trace::detail {
namespace fs = std::filesystem;
namespace {

// The columns of a dispatch row, in the order the row function takes them, and what stands in for
// those a table lacks (none: required); the correlation id follows them.
constexpr std::array<std::pair<const char*, const char*>, 16> kColumns = {{
    {"guid", "''"}, {"id", "rowid"}, {"kernel_id", nullptr}, {"agent_id", "-1"}, {"queue_id", "0"},
    {"stream_id", "0"}, {"start", nullptr}, {"end", nullptr}, {"workgroup_size_x", "1"},
    {"workgroup_size_y", "1"}, {"workgroup_size_z", "1"}, {"grid_size_x", "1"}, {"grid_size_y", "1"},
    {"grid_size_z", "1"}, {"group_segment_size", "0"}, {"private_segment_size", "0"},
}};
constexpr int kArguments = static_cast<int>(kColumns.size()) + 1;
constexpr const char* kRowFunction = "rpl_dispatch_row";
// AQL packets hold workgroup sizes in 16 bits and segment sizes in 32 bits; CUDA grids of
// work-items can pass 32 bits.
constexpr int64_t kMaxWorkgroupDim = 65535;

struct Range {
  int64_t lo, hi;
};

// One range's rows as SQLite hands them over: written at rows_out[...] when given (in place, into
// a slice sized beforehand), else kept in `rows`.
struct RowSink {
  const DispatchTable& table;
  Dispatch* rows_out = nullptr;
  std::vector<Dispatch> rows;
  DispatchChunk chunk;
  GeometryTable geometries{chunk.geometries};
  const std::unordered_map<int64_t, int32_t>* symbols = nullptr;
  const std::unordered_map<int64_t, int32_t>* agents = nullptr;
  std::exception_ptr error;

  RowSink(const DispatchTable& t, Dispatch* out) : table(t), rows_out(out) {}

  uint64_t checked_size(sqlite3_value** v, int column, int64_t lo, int64_t hi, int64_t dispatch_id) const {
    const int64_t value = sqlite3_value_int64(v[column]);
    if (value < lo || value > hi) {
      fail(Errc::bad_input, "{}: dispatch {} has an invalid {} of {}; the database is corrupt", table.file.string(), dispatch_id,
           kColumns[static_cast<size_t>(column)].first, value);
    }
    return static_cast<uint64_t>(value);
  }

  void add(sqlite3_value** v) {
    const auto* guid = reinterpret_cast<const char*>(sqlite3_value_text(v[0]));
    if (!guid) guid = "";
    if (chunk.guid_runs.empty() || chunk.guid_runs.back().first != guid) {
      chunk.guid_runs.emplace_back(guid, chunk.count);
      symbols = table.symbols.for_guid(guid);
      agents = table.agents.for_guid(guid);
    }
    Dispatch d{};
    d.source = table.source;
    d.id = sqlite3_value_int64(v[1]);
    const int64_t kernel_id = sqlite3_value_int64(v[2]);
    const int64_t agent_id = sqlite3_value_int64(v[3]);
    d.queue_id = sqlite3_value_int64(v[4]);
    d.stream_id = sqlite3_value_int64(v[5]);
    d.start_ns = sqlite3_value_int64(v[6]);
    d.end_ns = sqlite3_value_int64(v[7]);
    DispatchGeometry g;
    g.workgroup = {static_cast<uint32_t>(checked_size(v, 8, 1, kMaxWorkgroupDim, d.id)),
                   static_cast<uint32_t>(checked_size(v, 9, 1, kMaxWorkgroupDim, d.id)),
                   static_cast<uint32_t>(checked_size(v, 10, 1, kMaxWorkgroupDim, d.id))};
    g.grid = {checked_size(v, 11, 1, INT64_MAX, d.id), checked_size(v, 12, 1, INT64_MAX, d.id),
              checked_size(v, 13, 1, INT64_MAX, d.id)};
    g.group_segment_size = static_cast<uint32_t>(checked_size(v, 14, 0, UINT32_MAX, d.id));
    g.private_segment_size = static_cast<uint32_t>(checked_size(v, 15, 0, UINT32_MAX, d.id));
    d.correlation_id = sqlite3_value_int64(v[16]);
    d.geometry = geometries.intern(g);
    if (d.end_ns < d.start_ns) {
      ++chunk.bad_times;
      d.end_ns = d.start_ns;
    }
    d.symbol = -1;
    if (symbols) {
      auto it = symbols->find(kernel_id);
      if (it != symbols->end()) d.symbol = it->second;
    }
    if (d.symbol < 0) chunk.unknown_kernels.emplace_back(chunk.count, kernel_id);
    d.agent = -1;
    if (agents) {
      auto it = agents->find(agent_id);
      if (it != agents->end()) d.agent = static_cast<int16_t>(it->second);
    }
    if (rows_out) {
      rows_out[chunk.count] = d;
    } else {
      rows.push_back(d);
    }
    ++chunk.count;
  }
};

// SQLite passes each row's columns to this SQL function as its arguments: that skips the result
// row and a C API call per cell, a fifth of the reader's time against sqlite3_column_*().
// Exceptions stop at SQLite's frames: kept, then rethrown.
void dispatch_row(sqlite3_context* context, int, sqlite3_value** v) {
  auto& sink = *static_cast<RowSink*>(sqlite3_user_data(context));
  try {
    sink.add(v);
  } catch (...) {
    sink.error = std::current_exception();
    sqlite3_result_error(context, "stopped by the reader", -1);
  }
}

// Reads the rows of `select` (of the row function), in a rowid range when given, into `sink`.
// Runs on worker threads: it reads only what no thread writes.
void read_rows(SQLite::Database& db, const std::string& select, std::optional<Range> range, RowSink& sink) {
  sqlite3* handle = db.getHandle();
  // Direct only: no view or trigger of the file can call it.
  if (int rc = sqlite3_create_function(handle, kRowFunction, kArguments, SQLITE_UTF8 | SQLITE_DIRECTONLY, &sink, &dispatch_row,
                                       nullptr, nullptr);
      rc != SQLITE_OK) {
    throw SQLite::Exception(handle, rc);
  }
  // Unregistered on the way out: the sink dies with the caller.
  std::unique_ptr<sqlite3, void (*)(sqlite3*)> registered(handle, [](sqlite3* h) {
    sqlite3_create_function(h, kRowFunction, kArguments, SQLITE_UTF8, nullptr, nullptr, nullptr, nullptr);
  });
  const std::string sql = range ? select + fmt::format(" WHERE rowid BETWEEN {} AND {}", range->lo, range->hi) : select;
  sqlite3_stmt* raw = nullptr;
  if (int rc = sqlite3_prepare_v2(handle, sql.c_str(), -1, &raw, nullptr); rc != SQLITE_OK) throw SQLite::Exception(handle, rc);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> statement(raw, &sqlite3_finalize);
  int rc;
  while ((rc = sqlite3_step(raw)) == SQLITE_ROW) {
  }
  if (sink.error) std::rethrow_exception(sink.error);
  if (rc != SQLITE_DONE) throw SQLite::Exception(handle, rc);
}

// Splits a table's rowids among the cores, for tables worth it and ids dense enough to size a
// list by their span; none otherwise (one plain scan).
std::vector<Range> plan_ranges(SQLite::Database& db, const DispatchTable& table) {
  if (!table.is_table) return {};
  int64_t lo = 0, hi = 0;
  try {
    // Separate statements: SQLite finds a lone min() or max() of the rowid in the b-tree, but
    // scans the whole table for both at once.
    SQLite::Statement first(db, "SELECT min(rowid) FROM " + table.name);
    SQLite::Statement last(db, "SELECT max(rowid) FROM " + table.name);
    if (!first.executeStep() || !last.executeStep() || first.getColumn(0).isNull()) return {};
    lo = first.getColumn(0).getInt64();
    hi = last.getColumn(0).getInt64();
  } catch (const SQLite::Exception&) {
    return {};  // WITHOUT ROWID
  }
  std::error_code ec;
  const int64_t rows_bound = static_cast<int64_t>(fs::file_size(table.file, ec)) / 16;  // no row takes fewer bytes
  constexpr int64_t kRowsPerThread = 100'000;
  if (ec || hi - lo + 1 > rows_bound || hi - lo + 1 < 2 * kRowsPerThread) return {};
  const int64_t cores = std::max<int64_t>(std::thread::hardware_concurrency(), 1);
  const int64_t threads = std::clamp<int64_t>((hi - lo + 1) / kRowsPerThread, 1, std::min<int64_t>(cores, 8));
  if (threads < 2) return {};
  std::vector<Range> ranges;
  const int64_t step = (hi - lo) / threads + 1;
  for (int64_t start = lo; start <= hi; start += step) ranges.push_back({start, std::min(hi, start + step - 1)});
  return ranges;
}

}  // namespace

std::vector<DispatchChunk> read_dispatch_table(SQLite::Database& db, const DispatchTable& table, DispatchList& dispatches) {
  std::string arguments;
  for (const auto& [column, fallback] : kColumns) {
    arguments.append(arguments.empty() ? "" : ", ").append(fallback ? column_or(table.columns, column, fallback) : fmt::format("\"{}\"", column));
  }
  const std::string select = fmt::format("SELECT {}({}, {}) FROM {}", kRowFunction, arguments, table.correlation, table.name);

  // A large table is read in rowid ranges, a connection and thread each, every range written in
  // place into its own slice of the list: the same rows in the same order as one scan, sooner.
  // (Decoding rows and first touching their memory are the cost; both split across cores.)
  const size_t base = dispatches.size();
  const std::vector<Range> ranges = plan_ranges(db, table);
  if (ranges.empty()) {
    RowSink sink(table, nullptr);
    read_rows(db, select, std::nullopt, sink);
    dispatches.insert(dispatches.end(), sink.rows.begin(), sink.rows.end());
    sink.chunk.offset = base;
    return {std::move(sink.chunk)};
  }
  const int64_t span = ranges.back().hi - ranges.front().lo + 1;
  dispatches.resize(base + static_cast<size_t>(span));  // uninitialized: nothing touched yet
  std::vector<DispatchChunk> chunks(ranges.size());
  std::vector<std::exception_ptr> errors(ranges.size());
  std::vector<std::thread> workers;
  for (size_t i = 0; i < ranges.size(); ++i) {
    workers.emplace_back([&, i] {
      try {
        const size_t offset = base + static_cast<size_t>(ranges[i].lo - ranges.front().lo);
        SQLite::Database connection(table.file.string(), SQLite::OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
        RowSink sink(table, dispatches.data() + offset);
        read_rows(connection, select, ranges[i], sink);
        chunks[i] = std::move(sink.chunk);
        chunks[i].offset = offset;
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  for (auto& e : errors) {
    if (e) {
      dispatches.resize(base);
      std::rethrow_exception(e);
    }
  }
  // Ids with holes leave gaps at the end of a slice: close them up, in order.
  size_t end = base;
  for (auto& chunk : chunks) {
    if (chunk.offset != end) {
      std::memmove(&dispatches[end], &dispatches[chunk.offset], chunk.count * sizeof(Dispatch));
      chunk.offset = end;
    }
    end += chunk.count;
  }
  dispatches.resize(end);
  return chunks;
}

}  // namespace rpl::trace::detail
