#pragma once
// A trace as Chrome/Perfetto trace-event JSON (the "JSON Object Format" that ui.perfetto.dev and
// chrome://tracing open; docs/perfetto_export.md): one process per traced process, one track per
// stream and per host thread, kernels, copies and host API calls as slices, dependency edges as
// flows, counter values as counter tracks.
#include <cstddef>
#include <ostream>

#include <rpl/analysis/dag.hpp>
#include <rpl/trace/model.hpp>

namespace rpl::report {

struct PerfettoExportCounts {
  size_t processes = 0, tracks = 0, slices = 0, flows = 0, counter_events = 0;
};

/// Writes the document to out, events in a fixed order (same trace, same bytes). dag supplies the
/// flows: every cross-stream edge between two operations (host synchronizations are not slices).
PerfettoExportCounts write_perfetto_trace(const trace::Trace& trace, const analysis::DagResult& dag, std::ostream& out);

}  // namespace rpl::report
