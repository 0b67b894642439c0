// rocm-perf analyze [opts] TRACE.db [...]
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "analysis_outputs.hpp"
#include "commands.hpp"
#include "render.hpp"

namespace rpl::cli {
namespace {

struct AnalyzeCommandOptions {
  OutputOptions output;
  std::vector<std::string> databases;
  std::string kernel;
  std::string out_dir;
  AnalysisOutputOptions analyses;
};

}  // namespace

Action add_analyze_command(CLI::App& app) {
  auto o = std::make_shared<AnalyzeCommandOptions>();
  auto* cmd = app.add_subcommand("analyze", "analyze existing rocpd trace databases (no GPU needed)");
  add_output_options(*cmd, o->output, true);
  cmd->add_option("databases", o->databases, "rocpd databases (one per run or process)")->required();
  cmd->add_option("--kernel", o->kernel, "regular expression choosing the kernel to analyze");
  auto* out = cmd->add_option("--out", o->out_dir, "also write profile.json, roofline.json and dag.json into this folder");
  add_analysis_output_options(*cmd, o->analyses);
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
    std::vector<std::filesystem::path> files(o->databases.begin(), o->databases.end());
    auto trace = trace::read_rocpd(files);
    analysis::AnalyzeOptions options;
    if (!o->kernel.empty()) options.kernel_regex = o->kernel;
    auto summary = analysis::summarize_trace(trace, options);
    const auto roofline = roofline_for(trace, summary, o->analyses);
    auto document = report::profile_json(summary);
    document["roofline"] = roofline.dominant;
    std::string closing_text = roofline.text;
    if (!o->out_dir.empty()) {
      create_output_folder(o->out_dir);
      o->analyses.names = o->output.names;
      closing_text += write_analysis_outputs(trace, summary, roofline, o->out_dir, o->analyses);
      write_output_file(std::filesystem::path(o->out_dir) / "profile.json", report::dump(document));
    }
    return render_profile(summary, document, o->output, closing_text);
  };
}

}  // namespace rpl::cli
