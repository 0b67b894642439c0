#include "rocpd_hip_api.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace rpl::trace::detail {
namespace {

struct HipCall {
  const char* name;
  EventOperationKind kind;
};

// The HIP functions that record an event or wait (the _spt forms use the per-thread default stream).
constexpr HipCall kHipCalls[] = {
    {"hipEventRecord", EventOperationKind::event_record},
    {"hipEventRecord_spt", EventOperationKind::event_record},
    {"hipEventRecordWithFlags", EventOperationKind::event_record},
    {"hipStreamWaitEvent", EventOperationKind::stream_wait_event},
    {"hipStreamWaitEvent_spt", EventOperationKind::stream_wait_event},
    {"hipEventSynchronize", EventOperationKind::event_synchronize},
    {"hipStreamSynchronize", EventOperationKind::stream_synchronize},
    {"hipStreamSynchronize_spt", EventOperationKind::stream_synchronize},
    {"hipDeviceSynchronize", EventOperationKind::device_synchronize},
};

bool has_columns(SQLite::Database& db, const TableSet& set, const std::string& table, std::initializer_list<const char*> names) {
  const auto cols = columns_of(db, set.name(table));
  return std::all_of(names.begin(), names.end(), [&](const char* n) { return cols.count(n) != 0; });
}

// rocpd_string ids of the calls that the string table holds; none where a table or column this
// reading needs is missing.
std::unordered_map<int64_t, EventOperationKind> hip_call_ids(SQLite::Database& db, const TableSet& set) {
  std::unordered_map<int64_t, EventOperationKind> ids;
  if (!set.has("string") || !set.has("region") || !set.has("event") || !set.has("arg")) return ids;
  if (!has_columns(db, set, "string", {"id", "string"}) ||
      !has_columns(db, set, "region", {"name_id", "event_id", "start", "end"}) ||
      !has_columns(db, set, "event", {"id", "stack_id"}) ||
      !has_columns(db, set, "arg", {"id", "event_id", "name", "type", "value"})) {
    return ids;
  }
  std::string names;
  for (const auto& c : kHipCalls) names += std::string(names.empty() ? "'" : ", '") + c.name + "'";
  SQLite::Statement st(db, "SELECT id, string FROM " + set.name("string") + " WHERE string IN (" + names + ")");
  while (st.executeStep()) {
    const std::string name = text_or_empty(st.getColumn(1));
    for (const auto& c : kHipCalls) {
      if (name == c.name) ids.emplace(st.getColumn(0).getInt64(), c.kind);
    }
  }
  return ids;
}

std::string id_list(const std::unordered_map<int64_t, EventOperationKind>& ids) {
  std::vector<int64_t> sorted;
  for (const auto& [id, kind] : ids) sorted.push_back(id);
  std::sort(sorted.begin(), sorted.end());
  std::string list;
  for (int64_t id : sorted) list += (list.empty() ? "" : ", ") + std::to_string(id);
  return list;
}

// HIP prints a handle as a pointer; a null one as libstdc++ or libc++ print it, or as rocprofiler's "(null)".
std::string normalized_handle(std::string value) {
  if (value == "0x0" || value == "(nil)" || value == "(null)" || value == "nullptr" || value.empty()) return "0";
  return value;
}

// What an argument is, from its demangled type ("ihipStream_t*"), or its name where the type says nothing.
enum class ArgRole { other, stream, event };
ArgRole role_of(const std::string& name, const std::string& type) {
  const bool pointer_to_handle = type.find("**") != std::string::npos;  // an output argument, e.g. of hipStreamCreate
  if (type.find("ihipStream_t") != std::string::npos) return pointer_to_handle ? ArgRole::other : ArgRole::stream;
  if (type.find("ihipEvent_t") != std::string::npos) return pointer_to_handle ? ArgRole::other : ArgRole::event;
  if (type.find("ihip") != std::string::npos) return ArgRole::other;
  if (name == "stream" || name == "hStream") return ArgRole::stream;
  if (name == "event") return ArgRole::event;
  return ArgRole::other;
}

struct Call {
  EventOperation op;
  std::string stream, event;   // handles as printed; empty where the call has no such argument
  int64_t stream_id_given = -1;  // the arg's extdata.stream_id, where a writer put one there
};

// A handle within its process (GUID): processes merged into one file share the tables, and each
// numbers its correlation ids and streams on its own.
using ProcessKey = std::pair<std::string, std::string>;

// hipStream_t value -> (correlation id, stream id) of the work enqueued with it, by correlation id: a
// handle may be freed and reused for a stream that rocprofiler numbers anew.
using StreamUses = std::map<ProcessKey, std::vector<std::pair<int64_t, int64_t>>>;

int64_t stream_id_at(const StreamUses& uses, const ProcessKey& handle, int64_t correlation_id,
                     std::map<ProcessKey, int64_t>& unused_handles) {
  auto it = uses.find(handle);
  if (it != uses.end()) {
    const auto& list = it->second;
    auto after = std::upper_bound(list.begin(), list.end(), std::make_pair(correlation_id, INT64_MAX));
    return after == list.begin() ? after->second : std::prev(after)->second;
  }
  if (handle.second == "0") return 0;  // rocprofiler numbers the null stream 0
  // A stream that ran no traced work: a stream of its own, numbered below rocprofiler's ids.
  auto [u, added] = unused_handles.try_emplace(handle, -1 - static_cast<int64_t>(unused_handles.size()));
  return u->second;
}

}  // namespace

bool has_hip_event_calls(SQLite::Database& db, const TableSet& set) {
  const auto ids = hip_call_ids(db, set);
  if (ids.empty()) return false;
  SQLite::Statement st(db, "SELECT 1 FROM " + set.name("region") + " WHERE name_id IN (" + id_list(ids) + ") LIMIT 1");
  return st.executeStep();
}

size_t read_hip_event_operations(SQLite::Database& db, const TableSet& set, int32_t source,
                                 const std::vector<EnqueuedWork>& work, Trace& trace) {
  const auto ids = hip_call_ids(db, set);
  if (ids.empty()) return 0;
  const auto region_cols = columns_of(db, set.name("region"));
  std::vector<Call> calls;
  std::unordered_map<int64_t, size_t> call_of_event;  // rocpd_event id -> index in calls
  {
    SQLite::Statement st(db, "SELECT r.name_id, r.event_id, " + std::string(region_cols.count("guid") ? "r.guid" : "''") +
                                 ", r.start, r.\"end\", e.stack_id FROM " + set.name("region") + " r JOIN " +
                                 set.name("event") + " e ON e.id = r.event_id WHERE r.name_id IN (" + id_list(ids) +
                                 ") ORDER BY r.event_id");
    while (st.executeStep()) {
      Call c;
      c.op.source = source;
      c.op.kind = ids.at(st.getColumn(0).getInt64());
      c.op.guid = text_or_empty(st.getColumn(2));
      c.op.start_ns = st.getColumn(3).getInt64();
      c.op.end_ns = st.getColumn(4).getInt64();
      c.op.correlation_id = st.getColumn(5).getInt64();
      if (call_of_event.emplace(st.getColumn(1).getInt64(), calls.size()).second) calls.push_back(std::move(c));
    }
  }

  std::map<std::pair<std::string, int64_t>, int64_t> stream_of_work;  // (GUID, correlation id) -> stream
  for (const auto& w : work) {
    if (w.correlation_id != 0) stream_of_work.emplace(std::make_pair(w.guid, w.correlation_id), w.stream_id);
  }
  StreamUses uses;
  const auto arg_cols = columns_of(db, set.name("arg"));
  SQLite::Statement args(db,
                         "SELECT a.event_id, e.stack_id, a.name, a.type, a.value, " +
                             std::string(arg_cols.count("extdata")
                                             ? "CASE WHEN json_valid(a.extdata) THEN json_extract(a.extdata, '$.stream_id') END"
                                             : "NULL") +
                             ", " + std::string(arg_cols.count("guid") ? "a.guid" : "''") + " FROM " +
                             set.name("arg") + " a JOIN " + set.name("event") +
                             " e ON e.id = a.event_id WHERE a.type LIKE '%ihipStream_t%' OR a.type LIKE "
                             "'%ihipEvent_t%' OR a.name IN ('stream', 'hStream', 'event') ORDER BY a.id");
  while (args.executeStep()) {
    const auto role = role_of(text_or_empty(args.getColumn(2)), text_or_empty(args.getColumn(3)));
    if (role == ArgRole::other) continue;
    const std::string handle = normalized_handle(text_or_empty(args.getColumn(4)));
    if (auto c = call_of_event.find(args.getColumn(0).getInt64()); c != call_of_event.end()) {
      auto& call = calls[c->second];
      (role == ArgRole::stream ? call.stream : call.event) = handle;
      if (role == ArgRole::stream && args.getColumn(5).isInteger()) call.stream_id_given = args.getColumn(5).getInt64();
    } else if (role == ArgRole::stream) {
      const std::string guid = text_or_empty(args.getColumn(6));
      const int64_t correlation_id = args.getColumn(1).getInt64();
      if (auto w = stream_of_work.find({guid, correlation_id}); w != stream_of_work.end()) {
        uses[{guid, handle}].emplace_back(correlation_id, w->second);
      }
    }
  }
  for (auto& [handle, list] : uses) std::sort(list.begin(), list.end());

  // Calls in the order the process made them; each record starts a new recording of its event,
  // and a wait names the latest recording of its event before it.
  std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return std::tie(a.op.guid, a.op.correlation_id) < std::tie(b.op.guid, b.op.correlation_id);
  });
  std::map<ProcessKey, int64_t> current_recording, unused_handles;
  int64_t recordings = 0;
  size_t added = 0;
  for (auto& c : calls) {
    const bool needs_event = c.op.kind == EventOperationKind::event_record ||
                             c.op.kind == EventOperationKind::stream_wait_event ||
                             c.op.kind == EventOperationKind::event_synchronize;
    const bool needs_stream = c.op.kind == EventOperationKind::event_record ||
                              c.op.kind == EventOperationKind::stream_wait_event ||
                              c.op.kind == EventOperationKind::stream_synchronize;
    if (needs_event && (c.event.empty() || c.event == "0")) continue;  // a call that failed or had no argument
    if (needs_stream && c.stream.empty()) c.stream = "0";               // HIP's default argument: the null stream
    if (needs_stream) {
      c.op.stream_id = c.stream_id_given >= 0 ? c.stream_id_given
                                              : stream_id_at(uses, {c.op.guid, c.stream}, c.op.correlation_id, unused_handles);
    }
    if (c.op.kind == EventOperationKind::event_record) {
      c.op.event = current_recording[{c.op.guid, c.event}] = ++recordings;
    } else if (needs_event) {
      auto r = current_recording.find({c.op.guid, c.event});
      c.op.event = r != current_recording.end() ? r->second : ++recordings;  // never recorded: a recording of its own
    }
    trace.event_operations.push_back(std::move(c.op));
    ++added;
  }
  return added;
}

}  // namespace rpl::trace::detail
