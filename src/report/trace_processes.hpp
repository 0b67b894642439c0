#pragma once
// The processes of a trace, numbered the same way by every view of it (the Perfetto export, the
// report's timeline): the ranks of a multi-rank job first, in rank order, then by (database,
// process GUID); each operation given its process's number.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::report {

struct TraceProcesses {
  std::map<std::pair<int32_t, std::string>, uint32_t> numbers;  // (source, GUID) → 0, 1, ...
  std::vector<uint32_t> dispatch, copy, call;                   // the number of each operation's process
  /// By number: "rank 3" for a rank of a multi-rank job ("rank 3 on HOST" where the job spans
  /// hosts), "" for a process without one.
  std::vector<std::string> rank_label;
};

/// Numbers the processes of every dispatch and copy, and of every host call where with_calls.
TraceProcesses number_processes(const trace::Trace& trace, bool with_calls);

}  // namespace rpl::report
