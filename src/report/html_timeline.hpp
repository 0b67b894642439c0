#pragma once
// The timeline section of the HTML report (html_report.cpp puts it on the page), and the text
// helpers the page's sections share (defined in html_report.cpp).
#include <string>

#include <nlohmann/json.hpp>

namespace rpl::report {

/// Text made safe to put between HTML tags or in an attribute.
std::string escaped(const std::string& text);

/// The string at j[key]; "" where j is no object or that is no string.
std::string text_at(const nlohmann::json& j, const char* key);

/// A summary line: a label and its value, the value in an element with an id the tests read.
std::string row(const std::string& label, const std::string& id, const std::string& value);

/// JSON to put inside a <script> element ("</" escaped, which would end it early).
std::string script_json(const nlohmann::json& j);

/// The section's markup: caption, buttons and canvas; or a line saying why there is no timeline.
std::string timeline_section(const nlohmann::json& timeline, const std::string& source);

/// The script that defines timelineChart(data) and timelineSelfTest(chart).
const char* timeline_script();

}  // namespace rpl::report
