#pragma once
// How the text summary and the HTML report both word what Nsight Compute measured and estimated
// (defined in bottleneck_json.cpp).
#include <string>

#include <rpl/analysis/speed_of_light.hpp>

namespace rpl::report {

/// "SM 89.9 %, memory 69.5 %, DRAM 16.6 %": the percentages ncu gave.
std::string speed_of_light_figures(const analysis::SpeedOfLight& sol);
/// "estimated local speedup 81.2 %": ncu's estimate for one of its rules.
std::string speedup_estimate(const std::string& kind, double percent);

}  // namespace rpl::report
