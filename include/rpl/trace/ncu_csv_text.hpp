#pragma once
// The text of Nsight Compute's CSV output, which the trace reader and the counter pass and source
// view (backends) all read.
#include <optional>
#include <string>
#include <vector>

namespace rpl::trace::ncu {

/// Fields of one CSV line, quotes removed ("" inside quotes is a quote). *closed, where given, is
/// set false where a quoted field runs past the line's end (it holds a line end).
std::vector<std::string> csv_fields(const std::string& line, bool* closed = nullptr);

/// "1,234.5" -> 1234.5; nothing for "-", "n/a" and the like.
std::optional<double> csv_number(std::string text);

}  // namespace rpl::trace::ncu
