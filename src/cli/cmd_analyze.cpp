// rocm-perf analyze [opts] TRACE [...]: parses, calls workflow::run_analyze, prints.
#include <rpl/core/log.hpp>
#include <rpl/workflow/analyze.hpp>

#include "analysis_options.hpp"
#include "commands.hpp"
#include "render.hpp"

namespace rpl::cli {
namespace {

struct AnalyzeCommandOptions {
  OutputOptions output;
  std::vector<std::string> databases;
  std::string kernel;
  std::string arch;
  std::string out_dir;
  AnalysisCommandOptions analyses;
};

}  // namespace
Action add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeCommandOptions>();
  auto* cmd = app.add_subcommand("analyze", "analyze traces already recorded: rocpd, rocprofv3 CSV or JSON, rocprof results.csv, rocprof-compute workloads, PyTorch profiler JSON, Nsight Systems and Nsight Compute exports (no GPU needed)");
  add_output_options(*cmd, o->output, true);
  cmd->add_option("databases", o->databases, "trace files (one per run or process: rocpd databases, rocprofv3 kernel_trace.csv or results.json, rocprof results.csv, rocprof-compute pmc_perf.csv, PyTorch profiler JSON, nsys .sqlite, ncu --csv output, ncu .ncu-rep reports read through ncu), or folders of them")->required();
  cmd->add_option("--kernel", o->kernel, "regular expression choosing the kernel to analyze");
  cmd->add_option("--arch", o->arch,
                  "the GPU's architecture (sm_80, gfx942, ...) where a trace does not record it: an ncu CSV without a CC "
                  "column, a rocprofv3 CSV without agent_info.csv; a GPU the trace records keeps its own");
  auto* out = cmd->add_option("--out", o->out_dir, "also write profile.json, roofline.json, dag.json and analysis.json into this folder");
  add_analysis_options(*cmd, o->analyses);
  cmd->add_option("--att", o->analyses.thread_trace_dir,
                  "a decoded AMD thread trace (or PC-sampling) folder of the analyzed kernel (its code.json): its stalls "
                  "and instruction mix go into analysis.json")
      ->needs(out);
  cmd->add_option("--ncu-source", o->analyses.ncu_source_file,
                  "ncu's source view of the analyzed kernel (ncu --import R --page source --csv --print-source cuda,sass): "
                  "its hottest instructions and source lines go into analysis.json")
      ->needs(out);
  return [o]() -> int {
    log::set_debug(o->output.debug);
    workflow::AnalyzeRequest request{{o->databases.begin(), o->databases.end()}, std::nullopt, o->arch, o->analyses.request(), o->out_dir};
    // The summary printed ends with what limits the kernel; the JSON on stdout is profile.json alone.
    request.options.folder_analyses = !o->output.json && !o->output.quiet;
    if (!o->kernel.empty()) request.kernel_regex = o->kernel;
    workflow::Control control;
    const auto r = workflow::run_analyze(request, control);
    log_analysis_warnings(r.analysis);
    return render_profile(r.analysis.summary, r.profile, o->output, workflow::analysis_text(r.analysis, o->output.names));
  };
}

}  // namespace rpl::cli
