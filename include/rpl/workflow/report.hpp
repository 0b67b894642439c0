#pragma once
// rocm-perf report as a library call: the self-contained HTML page of a folder that profile,
// analyze --out, optimize --out or autotune --out wrote (docs/report.md).
#include <filesystem>
#include <string>
#include <vector>

#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct ReportRequest {
  std::filesystem::path folder;
  std::filesystem::path output;               // "-" for standard output
  std::vector<std::filesystem::path> traces;  // the timeline's databases; default: the folder's first run
  std::filesystem::path chart_js;             // Chart.js to inline; default: RPL_CHARTJS, else Debian's libjs-chart.js
};

struct ReportResult {
  std::filesystem::path output;
  std::string page;  // "profile" (also of optimize's baseline, with its candidates) or "autotune"
};

/// Error(bad_input) for a folder of none of those commands; Error(missing_tool) without Chart.js.
ReportResult run_report(const ReportRequest& request, Control& control);

}  // namespace rpl::workflow
