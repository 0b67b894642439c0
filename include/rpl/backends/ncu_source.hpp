#pragma once
// ncu's source view of a profiled kernel (`ncu --import REPORT --page source --csv --print-source
// cuda,sass`, or `sass` alone), and the pass of profile --deep that records it for the dominant kernel.
#include <filesystem>
#include <string>
#include <vector>

#include <rpl/backends/run_options.hpp>
#include <rpl/trace/source_view.hpp>

namespace rpl::backends {

/// Every kernel view in the text. Error(bad_input) naming `origin` when it holds none.
std::vector<trace::SourceView> parse_ncu_source_csv(const std::string& text, const std::string& origin);

/// The views in a file (ncu_source.csv of a profile, or one the user exported): Error(bad_input)
/// naming it when it is not a regular file of that kind.
std::vector<trace::SourceView> read_ncu_source(const std::filesystem::path& file);

struct NcuKernelFilter {
  std::string regex;
  bool mangled = false;  // the regex is on mangled names (else on function names, ncu's default)
};

/// Runs the program under ncu once more for the first launch of a kernel the filter matches, with
/// its SourceCounters section, and writes the source view into dir/ncu_source.csv (the report
/// beside it); returns that file. Errors as collect_ncu_counters.
std::filesystem::path collect_ncu_source(const RunOptions& run, const NcuKernelFilter& kernel, const std::filesystem::path& dir);

}  // namespace rpl::backends
