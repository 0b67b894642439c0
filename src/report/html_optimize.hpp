#pragma once
// The optimizer's section of the HTML report (html_report.cpp puts it on the page when the folder
// is one that rocm-perf optimize wrote).
#include <string>

#include <nlohmann/json.hpp>

namespace rpl::report {

/// The section's markup from optimize.json: the kernel, the winner, the rejections counted by
/// stage, and a sortable table of every candidate; "" when optimize is null.
std::string optimize_section(const nlohmann::json& optimize);

}  // namespace rpl::report
