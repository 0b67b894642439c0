#pragma once
// The report's timeline of a trace (docs/report.md): its kernels and copies as bars, one lane per
// stream of each process, the critical path marked, in the column form that the page draws.
#include <cstddef>

#include <nlohmann/json.hpp>

#include <rpl/analysis/dag.hpp>
#include <rpl/trace/model.hpp>

namespace rpl::report {

/// {operations, shown, origin_ns, critical_path_ns, lanes[], names[], and per shown operation
/// lane[], kind[] (0 kernel, 1 copy), name[], start_ns[] (since origin_ns), duration_ns[]; then
/// critical[]: the shown operations on dag's critical path, in its order; window: where the GPU
/// works — the trace split at idle gaps longer than 5 % of it and 1 ms, the part with the most busy time —
/// {start_ns, end_ns, trace_end_ns (since origin_ns), busy_fraction, whole_busy_fraction}, null without
/// operations}. Operations are by start
/// time; past max_operations the rest are left out (shown < operations). Same input, same document.
nlohmann::json timeline_json(const trace::Trace& trace, const analysis::DagResult& dag, size_t max_operations);

}  // namespace rpl::report
