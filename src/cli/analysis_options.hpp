#pragma once
// The options of the analyses beside the profile summary (workflow::AnalysisOptions), shared by
// profile and analyze.
#include <CLI/CLI.hpp>

#include <rpl/workflow/analyze.hpp>

namespace rpl::cli {

struct AnalysisCommandOptions {
  double infer_threshold_us = 10;
  std::string ceilings_file;
  std::string thread_trace_dir;  // analyze --att
  std::string ncu_source_file;   // analyze --ncu-source
  workflow::AnalysisOptions request() const {
    workflow::AnalysisOptions o;
    o.infer_threshold_us = infer_threshold_us;
    o.ceilings_file = ceilings_file;
    o.thread_trace_dir = thread_trace_dir;
    o.ncu_source_file = ncu_source_file;
    return o;
  }
};
void add_analysis_options(CLI::App& cmd, AnalysisCommandOptions& options);

/// The analysis's warnings (the DAG's, the source view's), on stderr as log warnings.
void log_analysis_warnings(const workflow::TraceAnalysis& analysis);

}  // namespace rpl::cli
