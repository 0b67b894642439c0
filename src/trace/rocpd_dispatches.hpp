#pragma once
// The rocpd reader's hot path: a kernel dispatch table's rows into Trace::dispatches, a large table
// in rowid ranges read in parallel. What only the file's reader may add to the trace (GUIDs,
// geometries, unknown kernels, warnings) comes back in chunks for it to adopt.
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/trace/model.hpp>

namespace rpl::trace::detail {

/// Maps (guid, rocpd id) to an index in the model.
class IdMap {
 public:
  void add(const std::string& guid, int64_t id, int32_t index) { by_guid_[guid][id] = index; }
  int32_t find(const std::string& guid, int64_t id) const {
    auto g = by_guid_.find(guid);
    if (g == by_guid_.end()) return -1;
    auto it = g->second.find(id);
    return it == g->second.end() ? -1 : it->second;
  }
  const std::unordered_map<int64_t, int32_t>* for_guid(const std::string& guid) const {
    auto g = by_guid_.find(guid);
    return g == by_guid_.end() ? nullptr : &g->second;
  }

 private:
  std::map<std::string, std::unordered_map<int64_t, int32_t>> by_guid_;
};

/// A dispatch table and what its rows are resolved against.
struct DispatchTable {
  const std::filesystem::path& file;
  std::string name;                     // quoted, as SQL takes it
  const std::set<std::string>& columns;  // those it has
  std::string correlation;              // SQL of a row's correlation id ("0": not read)
  bool is_table = true;                 // a view is read in one scan
  int16_t source = 0;
  const IdMap& symbols;  // kernel ids
  const IdMap& agents;
};

/// Rows read by one range, besides the rows themselves.
struct DispatchChunk {
  size_t offset = 0;                                        // first row's index in Trace::dispatches
  size_t count = 0;
  std::vector<DispatchGeometry> geometries;                 // chunk-local; Dispatch::geometry indexes it
  std::vector<std::pair<std::string, size_t>> guid_runs;    // (guid, first row) wherever the GUID changes
  std::vector<std::pair<size_t, int64_t>> unknown_kernels;  // (row, kernel id) the symbol table lacks
  int64_t bad_times = 0;                                    // rows that end before they start (made 0 long)
};

/// Appends the table's rows to `dispatches` in the table's order (Dispatch::symbol -1 for a kernel
/// id the symbols lack, Dispatch::geometry chunk-local) and returns what each range found, in
/// order. A row of an impossible size is Error(bad_input) naming the dispatch and column; on any
/// error `dispatches` is left as it was.
std::vector<DispatchChunk> read_dispatch_table(SQLite::Database& db, const DispatchTable& table, DispatchList& dispatches);

}  // namespace rpl::trace::detail
