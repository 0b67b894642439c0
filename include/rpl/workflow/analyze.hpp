#pragma once
// The analysis of a trace, as profile, analyze and optimize run it (DESIGN.md "Output folder of
// profile"): the summary of the dominant kernel, the roofline of every kernel, and (for a folder)
// the dependency DAG, the stalls and the bottleneck; profile.json and the documents beside it are
// written here and nowhere else. run_analyze is rocm-perf analyze.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/analysis/roofline.hpp>
#include <rpl/analysis/short_names.hpp>
#include <rpl/trace/model.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct AnalysisOptions {
  double infer_threshold_us = 10;           // the DAG's, where no event operations were recorded
  std::filesystem::path ceilings_file;      // measured roofline ceilings
  std::filesystem::path thread_trace_dir;   // an AMD thread trace (or PC-sampling) folder of the kernel
  std::filesystem::path ncu_source_file;    // ncu's source view of the kernel
  bool folder_analyses = true;              // the DAG, stalls and bottleneck (always where a folder is written)
};

struct TraceAnalysis {
  analysis::ProfileSummary summary;
  analysis::RooflineResult roofline;
  std::optional<size_t> dominant_roofline;  // the summary's kernel in roofline.kernels, where measured
  analysis::DagOptions dag_options;
  std::optional<analysis::DagResult> dag;   // with folder_analyses
  std::optional<analysis::Bottleneck> bottleneck;  // with folder_analyses, where there is a kernel
  std::optional<analysis::StallAnalysis> other_kernel_stalls;  // a thread trace's of another kernel of the trace
  std::vector<std::string> warnings;        // beyond the summary's own: the DAG's ("dag: ..."), the source view's
};

/// The analyses of summary's kernel (analysis::summarize_trace of the trace). Every input
/// (ceilings, thread trace, source view) is read here, before anything is written.
TraceAnalysis analyze_trace(const trace::Trace& trace, analysis::ProfileSummary summary, const AnalysisOptions& options,
                            Control& control);

/// profile.json of a summary, with the dominant kernel's roofline record where analysis has one.
nlohmann::ordered_json profile_document(const analysis::ProfileSummary& summary, const TraceAnalysis* analysis = nullptr);

/// Writes out_dir/profile.json and, with folder_analyses, roofline.json, dag.json and (where there
/// is a kernel) analysis.json; an earlier analysis.json that no longer applies is removed. Returns
/// the profile.json it wrote.
nlohmann::ordered_json write_analysis_documents(const trace::Trace& trace, const TraceAnalysis& analysis, const std::filesystem::path& out_dir);

/// What ends the human summary: the roofline line, then the critical path, stalls and bottleneck.
std::string analysis_text(const TraceAnalysis& analysis, analysis::NameStyle names);

struct AnalyzeRequest {
  std::vector<std::filesystem::path> databases;
  std::optional<std::string> kernel_regex;  // the kernel to analyze; default: the dominant one
  std::string arch;  // the GPU's architecture where a trace does not record it (assume_architecture)
  AnalysisOptions options;
  std::filesystem::path out_dir;  // empty: nothing written (the folder analyses as options ask)
};

struct AnalyzeResult {
  TraceAnalysis analysis;
  nlohmann::ordered_json profile;  // profile.json
};

AnalyzeResult run_analyze(const AnalyzeRequest& request, Control& control);

}  // namespace rpl::workflow
