#include <rpl/workflow/profile.hpp>

#include <fmt/format.h>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/ncu_source.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/backends/wallclock.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/hal/ceilings.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "counter_passes.hpp"

namespace rpl::workflow {
namespace fs = std::filesystem;
namespace {

// The dominant kernel once more: AMD's thread trace, or ncu's per-instruction stall samples.
void deep_pass(const ProfileRequest& r, const std::string& backend, const analysis::ProfileSummary& summary, const fs::path& trace_dir,
               AnalysisOptions& analyses, std::vector<std::string>& warnings) {
  const std::string user_regex = r.kernel_regex.value_or("");
  if (backend == "rocm") {
    const std::string regex = user_regex.empty() ? analysis::exact_name_regex(summary.kernel->name) : user_regex;
    analyses.thread_trace_dir = backends::collect_thread_trace(r.run, regex, r.att_target_cu, trace_dir / "att");
    return;
  }
  // ncu matches the user's --kernel against function names, and ours against the mangled one.
  const backends::NcuKernelFilter filter{user_regex.empty() ? analysis::exact_name_regex(summary.kernel->mangled_name) : user_regex,
                                         user_regex.empty()};
  // The hottest lines are a part of --deep that a program may not give (no SASS view): the stall
  // pass has run, so the profile goes on without them.
  try {
    analyses.ncu_source_file = backends::collect_ncu_source(r.run, filter, trace_dir / "ncu_source");
  } catch (const Error& e) {
    if (e.code() == Errc::missing_tool) throw;
    warnings.push_back(fmt::format("--deep: no hottest lines or instructions: {}", e.what()));
  }
}

}  // namespace

ProfileResult run_profile(const ProfileRequest& r, Control& control) {
  backends::check_program_exists(r.run);
  if (!r.analyses.ceilings_file.empty()) {
    hal::Ceilings check;
    hal::apply_ceilings_file(check, r.analyses.ceilings_file.string());  // a bad file fails before anything runs
  }
  create_output_folder(r.out_dir);
  ProfileResult result;
  const auto trace_dir = r.out_dir / ".rocpd_profile";
  if (r.no_rocprof) {
    control.stage_started("run");
    result.summary = analysis::summarize_wallclock(backends::time_whole_process(r.run, trace_dir));
    control.stage_finished("run");
    // An earlier traced profile's analyses would not describe this one.
    std::error_code ec;
    for (const char* stale : {"dag.json", "roofline.json", "analysis.json"}) fs::remove(r.out_dir / stale, ec);
    result.profile = profile_document(result.summary);
    write_output_file(r.out_dir / "profile.json", report::dump(result.profile));
    return result;
  }
  const std::string backend = r.backend == "auto" ? backends::choose_trace_backend() : r.backend;
  if (r.counters && backend != "cuda") {
    fail(Errc::bad_input, "--counters and --metrics are the NVIDIA backend's (ncu); on AMD, --roofline chooses the counters");
  }
  control.stage_started("trace");
  auto dbs = backend == "cuda" ? backends::trace_with_cupti(r.run, trace_dir) : backends::trace_with_rocprofv3(r.run, trace_dir);
  control.stage_finished("trace");
  std::vector<std::string> warnings;
  if (r.counters || r.roofline || r.deep) {
    control.stage_started("counters");
    CounterPassOptions passes{r.counters, r.roofline, r.deep, r.metrics, r.kernel_regex.value_or(""), r.roofline_launches};
    run_counter_passes(backend, r.run, dbs, passes, warnings);
    control.stage_finished("counters");
  }
  const auto trace = trace::read_rocpd(dbs);
  if (trace.dispatches.empty()) {
    fail(Errc::run_failed, "{} ran, but no kernel dispatches were recorded (its traces: {})", display_command(r.run.command),
         trace_dir.string());
  }
  analysis::AnalyzeOptions options;
  options.kernel_regex = r.kernel_regex;
  auto summary = analysis::summarize_trace(trace, options);
  AnalysisOptions analyses = r.analyses;
  if (r.deep && summary.kernel) {
    control.stage_started("deep");
    deep_pass(r, backend, summary, trace_dir, analyses, warnings);
    control.stage_finished("deep");
  }
  for (const auto& w : warnings) control.warning("profile", w);
  summary.warnings.insert(summary.warnings.end(), warnings.begin(), warnings.end());
  result.analysis = analyze_trace(trace, summary, analyses, control);
  result.profile = write_analysis_documents(trace, *result.analysis, r.out_dir);
  result.summary = result.analysis->summary;
  return result;
}

}  // namespace rpl::workflow
