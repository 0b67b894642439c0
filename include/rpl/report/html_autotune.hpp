#pragma once
// The HTML report of a rocm-perf autotune folder (its autotune.json): the run's summary, the best
// value found so far against the configurations measured, each point coloured by the phase that
// found it, and the best configurations. Self-contained, Chart.js inlined as html_report's page.
#include <string>

#include <nlohmann/json.hpp>

namespace rpl::report {

/// The page, deterministic for the same input; chart_js is the Chart.js library's text.
std::string autotune_report(const nlohmann::json& autotune, const std::string& chart_js);

}  // namespace rpl::report
