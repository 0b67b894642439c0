#pragma once
// The timeline section of the HTML report (html_report.cpp puts it on the page).
#include <string>

#include <nlohmann/json.hpp>

namespace rpl::report {

/// Text made safe to put between HTML tags or in an attribute.
std::string escaped(const std::string& text);

/// The section's markup: caption, buttons and canvas; or a line saying why there is no timeline.
std::string timeline_section(const nlohmann::json& timeline, const std::string& source);

/// The script that defines timelineChart(data) and timelineSelfTest(chart).
const char* timeline_script();

}  // namespace rpl::report
