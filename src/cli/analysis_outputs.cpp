#include "analysis_outputs.hpp"

#include <cmath>

#include <rpl/analysis/dag.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/report/dag_json.hpp>

namespace rpl::cli {

void add_analysis_output_options(CLI::App& cmd, AnalysisOutputOptions& options) {
  cmd.add_option("--dag-infer-threshold-us", options.infer_threshold_us,
                 "for traces that recorded no event operations: an operation starting within this many microseconds "
                 "after another stream's operation ended is taken to depend on it (0: infer nothing)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
}

std::string write_analysis_outputs(const trace::Trace& trace, const std::filesystem::path& out_dir,
                                   const AnalysisOutputOptions& options) {
  analysis::DagOptions dag_options;
  dag_options.infer_threshold_ns = std::llround(options.infer_threshold_us * 1000.0);
  const auto dag = analysis::analyze_dag(trace, dag_options);
  write_file_atomic(out_dir / "dag.json", report::dump(report::dag_json(dag, trace, dag_options)));
  for (const auto& w : dag.warnings) log::warning("dag: " + w);
  return report::dag_text(dag);
}

}  // namespace rpl::cli
