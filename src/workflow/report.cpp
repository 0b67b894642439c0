#include <rpl/workflow/report.hpp>
#include <rpl/workflow/trace_inputs.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/profile_diff.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/report/html_autotune.hpp>
#include <rpl/report/html_report.hpp>
#include <rpl/report/timeline.hpp>
#include <rpl/trace/trace_reader.hpp>
#include <rpl/workflow/profile_folder.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
using Json = nlohmann::json;
namespace {

// The most operations the timeline draws: past this the page grows beyond what a browser loads
// quickly, and export --format perfetto is the tool for the whole trace.
constexpr size_t kTimelineOperations = 200'000;

// The Chart.js the request names, or the copy that RPL_CHARTJS names, or Debian's libjs-chart.js.
std::string chart_js(const fs::path& requested) {
  const char* env = std::getenv("RPL_CHARTJS");
  const fs::path file = !requested.empty() ? requested : env && *env ? fs::path(env) : fs::path("/usr/share/javascript/chart.js/chart.min.js");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    fail(Errc::missing_tool, "Chart.js not found ({}): install libjs-chart.js, or set RPL_CHARTJS to chart.min.js", file.string());
  }
  std::string text = read_file(file, std::uintmax_t{16} << 20);
  if (text.find("</script") != std::string::npos) fail(Errc::bad_input, "{}: cannot be inlined into a page", file.string());
  return text;
}

// The kernel table: every kernel's time per run from the traces (the folder's runs, else those
// --trace names); where there are none (null), roofline.json's kernels.
std::vector<report::ReportKernel> kernels_of(const trace::Trace* traced, const Json& roofline) {
  auto bound = roofline_positions(roofline);
  std::map<std::string, analysis::SpeedOfLight> speed_of_light;
  for (const auto& k : roofline.is_object() ? roofline.value("kernels", Json::array()) : Json::array()) {
    if (!k.is_object() || !k.value("name", Json()).is_string()) continue;
    if (auto sol = report::speed_of_light_of(k.value("speed_of_light", Json()))) speed_of_light[k["name"]] = *sol;
  }
  auto sol_of = [&](const std::string& name) {
    const auto it = speed_of_light.find(name);
    return it == speed_of_light.end() ? std::nullopt : std::optional(it->second);
  };
  std::vector<report::ReportKernel> rows;
  if (traced) {
    const auto& trace = *traced;
    const auto times = analysis::kernel_times(trace);
    // Each kernel's occupancy is its longest dispatch's, as for the dominant kernel in profile.json.
    std::map<std::string, const trace::Dispatch*> longest;
    for (const auto& d : trace.dispatches) {
      const auto*& l = longest[d.symbol >= 0 ? trace.symbols[static_cast<size_t>(d.symbol)].name() : std::string("?")];
      if (!l || d.duration_ns() > l->duration_ns()) l = &d;
    }
    const double total = times.per_run_ms();
    for (const auto& k : times.kernels) {
      const double per_run = k.per_run_ms(), count = static_cast<double>(k.dispatches) / std::max(times.runs, 1);
      std::vector<std::string> unused_warnings;
      const auto occupancy = analysis::dispatch_occupancy(trace, *longest.at(k.name), unused_warnings);
      rows.push_back({k.name, count, per_run, count > 0 ? per_run / count : 0, total > 0 ? per_run / total : 0,
                      occupancy ? std::optional(occupancy->theoretical) : std::nullopt, occupancy ? occupancy->limiter : "",
                      bound.count(k.name) ? bound[k.name] : "", sol_of(k.name)});
    }
  } else if (roofline.is_object()) {
    double total = 0;
    for (const auto& k : roofline.value("kernels", Json::array())) total += k.value("time_ms", 0.0);
    for (const auto& k : roofline.value("kernels", Json::array())) {
      const double ms = k.value("time_ms", 0.0), count = k.value("dispatches", 0.0);
      const std::string name = k.value("name", std::string("?"));
      rows.push_back({name, count, ms, count > 0 ? ms / count : 0, total > 0 ? ms / total : 0, std::nullopt, "",
                      bound.count(name) ? bound[name] : "", sol_of(name)});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.per_run_ms > b.per_run_ms; });
  return rows;
}

// The databases of the timeline: those --trace names, or else the folder's first run (run1_*.db:
// one database per process it traced).
std::vector<fs::path> timeline_databases(const std::vector<fs::path>& runs, const std::vector<fs::path>& traces) {
  if (!traces.empty()) return traces;
  std::vector<fs::path> first_run;
  for (const auto& db : runs) {
    if (db.filename().string().rfind("run1_", 0) == 0) first_run.push_back(db);
  }
  return first_run;
}

}  // namespace

ReportResult run_report(const ReportRequest& request, Control& control) {
  const fs::path& folder = request.folder;
  const fs::path& output = request.output;
  const auto traces = trace_files(request.traces);
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) fail(Errc::bad_input, "{}: not a folder; give the folder that rocm-perf profile wrote", folder.string());
  // A folder of rocm-perf autotune: its search.
  if (const auto tuned = optional_json_document(folder / "autotune.json"); !tuned.is_null() && !fs::exists(folder / "profile.json", ec)) {
    OutputFile page(output);
    page.stream() << as_written(folder, [&] { return report::autotune_report(tuned, chart_js(request.chart_js)); });
    page.commit();
    return {output, "autotune"};
  }
  report::HtmlReportInput in;
  // A folder of rocm-perf optimize: the profile of its baseline, and its candidates.
  in.optimize = optional_json_document(folder / "optimize.json");
  const fs::path profiled = !in.optimize.is_null() && !fs::exists(folder / "profile.json", ec) ? folder / "work/baseline/profile" : folder;
  in.profile = optional_json_document(profiled / "profile.json");
  if (in.profile.is_null()) {
    fail(Errc::bad_input, "{}: no profile.json here; give a folder that rocm-perf profile, analyze --out, optimize --out or autotune --out wrote",
         profiled.string());
  }
  OutputFile page(output);  // a path that cannot be written fails before the traces are read
  in.roofline = optional_json_document(profiled / "roofline.json");
  in.analysis = optional_json_document(profiled / "analysis.json");
  in.dag = optional_json_document(profiled / "dag.json");
  // Each set of databases is read once: a folder of one run, or --trace beside a folder with no
  // runs, gives the table and the timeline the same trace.
  control.stage_started("read");
  const auto runs = run_databases(profiled);
  const auto& table_dbs = runs.empty() ? traces : runs;
  const auto timeline_dbs = timeline_databases(runs, traces);
  std::optional<trace::Trace> table_trace, timeline_trace;
  if (!table_dbs.empty()) table_trace = read_trace_files(table_dbs);
  if (!timeline_dbs.empty() && timeline_dbs != table_dbs) timeline_trace = read_trace_files(timeline_dbs);
  in.kernels = as_written(folder, [&] { return kernels_of(table_trace ? &*table_trace : nullptr, in.roofline); });
  if (!timeline_dbs.empty()) {
    const auto& trace = timeline_trace ? *timeline_trace : *table_trace;
    in.timeline = report::timeline_json(trace, analysis::analyze_dag(trace), kTimelineOperations);
    for (const auto& db : timeline_dbs) in.timeline_source += (in.timeline_source.empty() ? "" : ", ") + db.filename().string();
  }
  control.stage_finished("read");
  in.chart_js = chart_js(request.chart_js);
  page.stream() << as_written(folder, [&] { return report::html_report(in); });
  page.commit();
  return {output, "profile"};
}

}  // namespace rpl::workflow

