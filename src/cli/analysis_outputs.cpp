#include "analysis_outputs.hpp"

#include <cmath>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/analysis/dag.hpp>
#include <rpl/backends/att_output.hpp>
#include <rpl/backends/ncu_source.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/bottleneck_json.hpp>
#include <rpl/report/dag_json.hpp>
#include <rpl/report/roofline_json.hpp>

namespace rpl::cli {

void add_analysis_output_options(CLI::App& cmd, AnalysisOutputOptions& options) {
  cmd.add_option("--dag-infer-threshold-us", options.infer_threshold_us,
                 "for traces that recorded no event operations: an operation starting within this many microseconds "
                 "after another stream's operation ended is taken to depend on it (0: infer nothing)")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str();
  cmd.add_option("--ceilings", options.ceilings_file,
                 "measured roofline ceilings, JSON: {\"flops_per_s\": {\"fp32\": ...}, \"bytes_per_s\": {\"dram\": ...}}");
}

RooflineOutcome roofline_for(const trace::Trace& trace, const analysis::ProfileSummary& summary,
                             const AnalysisOutputOptions& options) {
  RooflineOutcome out;
  analysis::RooflineOptions roofline_options;
  if (!options.ceilings_file.empty()) roofline_options.ceilings_file = options.ceilings_file;
  out.result = analysis::analyze_roofline(trace, roofline_options);
  if (!summary.kernel) return out;
  for (const auto& k : out.result.kernels) {
    if (k.name != summary.kernel->name || k.measured_dispatches == 0) continue;
    out.dominant = report::kernel_roofline_json(k);
    out.text = report::roofline_text(k);
  }
  return out;
}

std::string write_analysis_outputs(const trace::Trace& trace, const analysis::ProfileSummary& summary,
                                   const RooflineOutcome& roofline, const std::filesystem::path& out_dir,
                                   const AnalysisOutputOptions& options) {
  // Everything is computed (and every input read) before the first file is written: a bad thread
  // trace folder must not leave half the documents behind.
  analysis::DagOptions dag_options;
  dag_options.infer_threshold_ns = std::llround(options.infer_threshold_us * 1000.0);
  const auto dag = analysis::analyze_dag(trace, dag_options);
  std::optional<analysis::Bottleneck> bottleneck;
  if (summary.kernel) {
    auto stalls =
        options.thread_trace_dir.empty()
            ? analysis::analyze_stalls(trace, summary.kernel->name)
            : analysis::analyze_thread_trace(backends::read_att_output(options.thread_trace_dir), summary.kernel->name);
    if (!options.ncu_source_file.empty()) {
      const auto views = backends::read_ncu_source(options.ncu_source_file);
      if (!stalls) {  // no stall counters: only what the source view's one profiled launch gives
        stalls.emplace();
        stalls->kernel = summary.kernel->name;
        stalls->measured_dispatches = 1;
      }
      if (!analysis::add_source_hot_spots(*stalls, views)) {
        log::warning(fmt::format("{}: holds no source view of {} (it has {}); no hot instructions", options.ncu_source_file,
                                 summary.kernel->name, views.front().function));
      }
    }
    bottleneck = analysis::classify_bottleneck(
        analysis::bottleneck_inputs(trace, summary, &roofline.result, &dag, stalls ? &*stalls : nullptr));
    bottleneck->stalls = stalls;
  }

  write_output_file(out_dir / "roofline.json", report::dump(report::roofline_json(roofline.result)));
  write_output_file(out_dir / "dag.json", report::dump(report::dag_json(dag, trace, dag_options)));
  std::error_code ec;
  std::filesystem::remove(out_dir / "analysis.json", ec);
  if (bottleneck) write_output_file(out_dir / "analysis.json", report::dump(report::analysis_json(*bottleneck)));

  for (const auto& w : dag.warnings) log::warning("dag: " + w);
  std::string text = report::dag_text(dag, options.names);
  if (bottleneck) {
    if (bottleneck->stalls) text += report::stalls_text(*bottleneck->stalls);
    text += report::bottleneck_text(*bottleneck);
  }
  return text;
}

}  // namespace rpl::cli
