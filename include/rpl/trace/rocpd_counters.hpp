#pragma once
// Hardware counter values added to an existing rocpd database: one rocpd_info_pmc row per metric,
// one rocpd_pmc_event row per (dispatch, metric), joined to the dispatch through rocpd_event as
// rocprofv3 does (reference/rocm.md §2.4).
#include <filesystem>
#include <string>
#include <vector>

namespace rpl::trace {

struct CounterSample {
  std::string kernel;       // mangled name, as rocpd_info_kernel_symbol.kernel_name
  size_t launch = 0;        // 0-based launch of that kernel, in launch order
  std::string metric;
  std::string unit;
  double value = 0;
};

struct CounterStoreResult {
  size_t stored = 0;        // samples written
  size_t unmatched = 0;     // samples whose kernel launch the trace lacks
};

/// Adds samples to the database's (first) table set, matching the n-th launch of a kernel to its
/// n-th dispatch in start order. Error(bad_input) when the file is not a writable rocpd database.
CounterStoreResult store_counters(const std::filesystem::path& database, const std::vector<CounterSample>& samples,
                                  const std::string& component);

}  // namespace rpl::trace
