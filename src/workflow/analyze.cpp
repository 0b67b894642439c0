#include <rpl/workflow/analyze.hpp>
#include <rpl/workflow/trace_inputs.hpp>

#include <cmath>
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include <rpl/backends/att_output.hpp>
#include <rpl/backends/ncu_source.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/bottleneck_json.hpp>
#include <rpl/report/dag_json.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/roofline_json.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
namespace {

// The kernel of the trace that a thread trace (or PC-sampling profile) traced, by the kernel its
// code.json names, else the dispatch its folder names; nullptr where it names none (then taken as
// the analyzed kernel's, with a warning). Of no kernel of the trace: an error naming both.
const trace::KernelSymbol* traced_kernel(const trace::Trace& trace, const trace::ThreadTrace& att, const analysis::KernelSummary& kernel,
                                         std::vector<std::string>& warnings) {
  auto is = [&](const trace::KernelSymbol& s) {
    if (!att.kernel_mangled.empty() && s.mangled_name == att.kernel_mangled) return true;
    return !att.kernel_name.empty() && (s.name() == att.kernel_name || s.mangled_name == att.kernel_name);
  };
  const trace::KernelSymbol* traced = nullptr;
  if (!att.kernel_mangled.empty() || !att.kernel_name.empty()) {
    for (const auto& s : trace.symbols) {
      if (is(s) && (!traced || s.mangled_name == kernel.mangled_name || s.name() == kernel.name)) traced = &s;
    }
  } else if (att.dispatch_id) {
    for (const auto& d : trace.dispatches) {
      if (d.id == *att.dispatch_id) traced = &trace.symbols[static_cast<size_t>(d.symbol)];
    }
  } else {
    warnings.push_back(fmt::format("{}: names no kernel (no marker row in code.json, no dispatch in the folder's name); taken as {}'s",
                                   att.dir.string(), kernel.name));
    return nullptr;
  }
  if (!traced) {
    const std::string what = !att.kernel_name.empty() ? att.kernel_name
                             : !att.kernel_mangled.empty() ? att.kernel_mangled
                                                            : fmt::format("dispatch {}", *att.dispatch_id);
    fail(Errc::bad_input, "{}: traced {}, which is in no dispatch of the trace analyzed (its kernel: {}); give the thread trace of this run",
         att.dir.string(), what, kernel.name);
  }
  return traced;
}

struct KernelStalls {
  std::optional<analysis::StallAnalysis> analyzed;  // the analyzed kernel's
  std::optional<analysis::StallAnalysis> other;     // a thread trace's of another kernel of the trace
};

// The analyzed kernel's stalls: from the thread trace where one of it is given, else the trace's
// counters, with the source view's hottest instructions and lines added. A thread trace of another
// kernel of the trace gives that kernel's stalls, kept apart.
KernelStalls stalls_of(const trace::Trace& trace, const analysis::KernelSummary& summary, const AnalysisOptions& options,
                       std::vector<std::string>& warnings) {
  const std::string& kernel = summary.name;
  KernelStalls out;
  auto& stalls = out.analyzed;
  if (!options.thread_trace_dir.empty()) {
    const auto att = backends::read_att_output(options.thread_trace_dir);
    const auto* traced = traced_kernel(trace, att, summary, warnings);
    if (!traced || traced->mangled_name == summary.mangled_name || traced->name() == kernel) {
      stalls = analysis::analyze_thread_trace(att, kernel);
    } else {
      std::string given = "given as that kernel's (analysis.json other_kernel_stalls)";
      try {
        out.other = analysis::analyze_thread_trace(att, traced->name());
      } catch (const Error& e) {  // another kernel's trace that cannot be read does not stop this analysis
        std::string why = e.what();
        if (const std::string dir = att.dir.string() + ": "; why.starts_with(dir)) why.erase(0, dir.size());
        given = fmt::format("not read ({})", why);
      }
      warnings.push_back(fmt::format("{}: traced {}, not the analyzed kernel {}; its stalls are {}, not this one's", att.dir.string(),
                                     traced->name(), kernel, given));
    }
  }
  if (!stalls) stalls = analysis::analyze_stalls(trace, kernel);
  if (!options.ncu_source_file.empty()) {
    const auto views = backends::read_ncu_source(options.ncu_source_file);
    if (!stalls) {  // no stall counters: only what the source view's one profiled launch gives
      stalls.emplace();
      stalls->kernel = kernel;
      stalls->measured_dispatches = 1;
    }
    if (!analysis::add_source_hot_spots(*stalls, views)) {
      warnings.push_back(fmt::format("{}: holds no source view of {} (it has {}); no hot instructions", options.ncu_source_file.string(),
                                     kernel, views.front().function));
    }
  }
  return out;
}

}  // namespace

TraceAnalysis analyze_trace(const trace::Trace& trace, analysis::ProfileSummary summary, const AnalysisOptions& options,
                            Control& control) {
  TraceAnalysis a;
  a.summary = std::move(summary);
  control.stage_started("roofline");
  analysis::RooflineOptions roofline_options;
  if (!options.ceilings_file.empty()) roofline_options.ceilings_file = options.ceilings_file.string();
  a.roofline = analysis::analyze_roofline(trace, roofline_options);
  for (size_t i = 0; a.summary.kernel && i < a.roofline.kernels.size(); ++i) {
    const auto& k = a.roofline.kernels[i];
    if (k.name == a.summary.kernel->name && k.measured_dispatches > 0) a.dominant_roofline = i;
  }
  control.stage_finished("roofline");
  if (!options.folder_analyses) return a;
  control.stage_started("dag");
  a.dag_options.infer_threshold_ns = std::llround(options.infer_threshold_us * 1000.0);
  a.dag = analysis::analyze_dag(trace, a.dag_options);
  for (const auto& w : a.dag->warnings) a.warnings.push_back("dag: " + w);
  control.stage_finished("dag");
  if (a.summary.kernel) {
    control.stage_started("bottleneck");
    auto stalls = stalls_of(trace, *a.summary.kernel, options, a.warnings);
    a.bottleneck = analysis::classify_bottleneck(
        analysis::bottleneck_inputs(trace, a.summary, &a.roofline, &*a.dag, stalls.analyzed ? &*stalls.analyzed : nullptr));
    a.bottleneck->stalls = std::move(stalls.analyzed);
    a.bottleneck->tool_findings = analysis::kernel_findings(trace, a.summary.kernel->name);
    a.other_kernel_stalls = std::move(stalls.other);
    control.stage_finished("bottleneck");
  }
  for (const auto& w : a.warnings) control.warning("analyze", w);
  return a;
}

nlohmann::ordered_json profile_document(const analysis::ProfileSummary& summary, const TraceAnalysis* analysis) {
  auto doc = report::profile_json(summary);
  doc["roofline"] = analysis && analysis->dominant_roofline
                        ? report::kernel_roofline_json(analysis->roofline.kernels[*analysis->dominant_roofline])
                        : report::Json(nullptr);
  return doc;
}

nlohmann::ordered_json write_analysis_documents(const trace::Trace& trace, const TraceAnalysis& a, const fs::path& out_dir) {
  if (a.dag) {
    write_output_file(out_dir / "roofline.json", report::dump(report::roofline_json(a.roofline)));
    write_output_file(out_dir / "dag.json", report::dump(report::dag_json(*a.dag, trace, a.dag_options)));
    std::error_code ec;
    fs::remove(out_dir / "analysis.json", ec);
    if (a.bottleneck) {
      write_output_file(out_dir / "analysis.json",
                        report::dump(report::analysis_json(*a.bottleneck, a.other_kernel_stalls ? &*a.other_kernel_stalls : nullptr)));
    }
  }
  auto profile = profile_document(a.summary, &a);
  write_output_file(out_dir / "profile.json", report::dump(profile));
  return profile;
}

std::string analysis_text(const TraceAnalysis& a, analysis::NameStyle names) {
  std::string text = a.dominant_roofline ? report::roofline_text(a.roofline.kernels[*a.dominant_roofline]) : "";
  // ncu's percentages of peak, where the roofline could not place the kernel.
  if (a.dominant_roofline) {
    const auto& k = a.roofline.kernels[*a.dominant_roofline];
    if (k.speed_of_light && !k.position) text += report::speed_of_light_text(*k.speed_of_light);
  }
  if (a.dag) text += report::dag_text(*a.dag, names);
  if (a.bottleneck) {
    if (a.bottleneck->stalls) text += report::stalls_text(*a.bottleneck->stalls);
    if (a.other_kernel_stalls) text += report::stalls_text(*a.other_kernel_stalls, a.other_kernel_stalls->kernel + " (its thread trace; not the kernel above)");
    text += report::bottleneck_text(*a.bottleneck);
    text += report::tool_findings_text(a.bottleneck->tool_findings);
  }
  return text;
}

namespace {

// Runs of one program on one kind of GPU combine; traces of two kinds (a profile of an MI300X and
// one of an MI250X given together, say) would be averaged into a kernel that ran on neither. One
// trace may use GPUs of two kinds; two traces that share no kind of GPU are refused.
void require_one_kind_of_gpu(const trace::Trace& trace) {
  std::map<int16_t, std::set<std::string>> kinds;  // source -> the architectures its dispatches ran on
  for (const auto& d : trace.dispatches) {
    if (d.agent < 0) continue;
    const auto& name = trace.agents[static_cast<size_t>(d.agent)].name;
    if (!name.empty()) kinds[d.source].insert(name);
  }
  for (auto a = kinds.begin(); a != kinds.end(); ++a) {
    for (auto b = std::next(a); b != kinds.end(); ++b) {
      const bool shared = std::any_of(a->second.begin(), a->second.end(), [&](const std::string& k) { return b->second.count(k) > 0; });
      if (!shared) {
        fail(Errc::bad_input, "{} ran on {} and {} on {}: give the runs of one kind of GPU at a time",
             trace.sources[static_cast<size_t>(a->first)].path, *a->second.begin(), trace.sources[static_cast<size_t>(b->first)].path,
             *b->second.begin());
      }
    }
  }
}

}  // namespace

AnalyzeResult run_analyze(const AnalyzeRequest& request, Control& control) {
  control.stage_started("read");
  auto trace = read_trace_inputs(request.databases);
  if (!request.arch.empty()) assume_architecture(trace, request.arch);
  require_one_kind_of_gpu(trace);
  control.stage_finished("read");
  AnalysisOptions options = request.options;
  options.folder_analyses = options.folder_analyses || !request.out_dir.empty();  // a folder holds them all
  control.stage_started("summary");
  analysis::AnalyzeOptions summary_options;
  summary_options.kernel_regex = request.kernel_regex;
  auto summary = analysis::summarize_trace(trace, summary_options);
  control.stage_finished("summary");
  AnalyzeResult r{analyze_trace(trace, std::move(summary), options, control), {}};
  if (request.out_dir.empty()) {
    r.profile = profile_document(r.analysis.summary, &r.analysis);
  } else {
    create_output_folder(request.out_dir);
    r.profile = write_analysis_documents(trace, r.analysis, request.out_dir);
  }
  return r;
}

}  // namespace rpl::workflow
