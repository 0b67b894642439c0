#include "analysis_options.hpp"

#include <rpl/core/log.hpp>

namespace rpl::cli {

void add_analysis_options(CLI::App& cmd, AnalysisCommandOptions& options) {
  cmd.add_option("--dag-infer-threshold-us", options.infer_threshold_us,
                 "for traces that recorded no event operations: an operation starting within this many microseconds "
                 "after another stream's operation ended is taken to depend on it (0: infer nothing)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--ceilings", options.ceilings_file,
                 "measured roofline ceilings, JSON: {\"flops_per_s\": {\"fp32\": ...}, \"bytes_per_s\": {\"dram\": ...}}");
}

void log_analysis_warnings(const workflow::TraceAnalysis& analysis) {
  for (const auto& w : analysis.warnings) log::warning(w);
}

}  // namespace rpl::cli
