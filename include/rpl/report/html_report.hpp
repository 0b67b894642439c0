#pragma once
// The HTML report of a profile folder (docs/report.md): one self-contained file that opens offline,
// with the summary, a roofline chart, a timeline of the trace, the stall breakdown and a sortable
// table of every kernel; for a folder of rocm-perf optimize, its candidates as a table too.
// The charts are drawn by Chart.js, whose text the caller supplies and the page inlines.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/analysis/speed_of_light.hpp>

namespace rpl::report {

/// One row of the kernel table.
struct ReportKernel {
  std::string name;
  double dispatches_per_run = 0;
  double per_run_ms = 0;   // its GPU time in one run, on average
  double mean_ms = 0;      // per dispatch
  double share = 0;        // of all kernels' time
  std::optional<double> occupancy;  // theoretical, 0..1, of its longest dispatch
  std::string limiter;              // what limits that occupancy
  std::string bound;       // roofline position, "" where unknown
  std::optional<analysis::SpeedOfLight> speed_of_light;  // ncu's percentages of peak, where the trace has them
};

struct HtmlReportInput {
  nlohmann::json profile;                  // profile.json
  nlohmann::json roofline;                 // roofline.json, or null
  nlohmann::json analysis;                 // analysis.json, or null
  nlohmann::json dag;                      // dag.json, or null
  nlohmann::json optimize;                 // optimize.json, or null
  nlohmann::json timeline;                 // timeline_json() of a trace, or null
  std::string timeline_source;             // where that trace came from ("run1.db"), for its caption
  std::vector<ReportKernel> kernels;       // by time, most first
  std::string chart_js;                    // the Chart.js library's text
};

/// The percentages of peak a record of roofline.json or analysis.json holds (speed_of_light);
/// nothing where it is null or not a record.
std::optional<analysis::SpeedOfLight> speed_of_light_of(const nlohmann::json& record);

/// The page, deterministic for the same input.
std::string html_report(const HtmlReportInput& input);

}  // namespace rpl::report
