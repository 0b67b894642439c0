#pragma once
// Event records, stream waits and host synchronizations read from rocprofv3's HIP API trace
// (--hip-runtime-trace): a rocpd_region row per call, named after the function, with the call's
// arguments as text in rocpd_arg (docs/dependencies.md).
#include <cstdint>
#include <string>
#include <vector>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/trace/model.hpp>

#include "rocpd_tables.hpp"

namespace rpl::trace::detail {

/// Whether the table set holds a HIP call that records an event or waits.
bool has_hip_event_calls(SQLite::Database& db, const TableSet& set);

/// GPU work a process (GUID) enqueued: the correlation id of the call that enqueued it, and its stream.
struct EnqueuedWork {
  std::string guid;
  int64_t correlation_id = 0;
  int64_t stream_id = 0;
};

/// Appends those calls to trace.event_operations and returns how many. A call names its stream by
/// its hipStream_t value, which rocpd does not map to a stream id: the map is learned from the
/// launches and copies (`work`) whose correlation id is that of a call with that stream argument.
size_t read_hip_event_operations(SQLite::Database& db, const TableSet& set, int32_t source,
                                 const std::vector<EnqueuedWork>& work, Trace& trace);

}  // namespace rpl::trace::detail
