#pragma once
// The analysis documents that profile and analyze --out write beside profile.json (DESIGN.md
// "Output folder of profile"): dag.json so far.
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include <rpl/trace/model.hpp>

namespace rpl::cli {

struct AnalysisOutputOptions {
  double infer_threshold_us = 10;
};
void add_analysis_output_options(CLI::App& cmd, AnalysisOutputOptions& options);

/// Analyzes the trace's dependencies, writes out_dir/dag.json and returns the lines the human
/// summary ends with.
std::string write_analysis_outputs(const trace::Trace& trace, const std::filesystem::path& out_dir,
                                   const AnalysisOutputOptions& options);

}  // namespace rpl::cli
