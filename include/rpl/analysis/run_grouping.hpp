#pragma once
// Which databases of a trace belong to one run of the profiled program. A run that starts several
// GPU processes leaves one database per process (rocprofv3 and the CUPTI tracer alike), so runs
// and processes are counted apart.
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

struct RunGrouping {
  int runs = 0;
  int processes = 0;              // GPU processes recorded, over all runs
  std::vector<int> run_of_source;  // Trace::sources index -> run index (0-based)
};

/// Files that `profile` wrote (run<N>_*.db) belong to run N of their folder. Other files are one
/// run together when their processes' kernel activity overlaps in time (the processes of one run
/// run side by side; separate runs of a program follow one another), else runs of their own.
RunGrouping group_runs(const trace::Trace& trace);

}  // namespace rpl::analysis
