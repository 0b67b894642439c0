#pragma once
// The analyses beside the profile summary (DESIGN.md "Output folder of profile"): the roofline
// (its dominant kernel's record goes into profile.json), the dependency DAG and the bottleneck of
// the dominant kernel, written as roofline.json, dag.json and analysis.json.
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include <rpl/analysis/profile_summary.hpp>
#include <rpl/analysis/short_names.hpp>
#include <rpl/analysis/roofline.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/model.hpp>

namespace rpl::cli {

struct AnalysisOutputOptions {
  double infer_threshold_us = 10;
  std::string ceilings_file;
  std::string thread_trace_dir;  // analyze --att: the dominant kernel's stalls from an AMD thread trace
  std::string ncu_source_file;   // analyze --ncu-source: its hot instructions and lines from ncu's source view
  analysis::NameStyle names = analysis::NameStyle::short_names;  // in the text it returns
};
void add_analysis_output_options(CLI::App& cmd, AnalysisOutputOptions& options);

struct RooflineOutcome {
  analysis::RooflineResult result;
  report::Json dominant = nullptr;  // profile.json's "roofline"
  std::string text;                 // its line in the human summary
};

/// The roofline of every kernel, and the record of the summary's kernel.
RooflineOutcome roofline_for(const trace::Trace& trace, const analysis::ProfileSummary& summary,
                             const AnalysisOutputOptions& options);

/// Writes out_dir/roofline.json, dag.json and (when the summary has a kernel) analysis.json;
/// returns the lines that end the human summary: the critical path, then the bottleneck.
std::string write_analysis_outputs(const trace::Trace& trace, const analysis::ProfileSummary& summary,
                                   const RooflineOutcome& roofline, const std::filesystem::path& out_dir,
                                   const AnalysisOutputOptions& options);

}  // namespace rpl::cli
