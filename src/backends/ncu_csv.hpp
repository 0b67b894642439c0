#pragma once
// The pieces of ncu's CSV output that the counter pass and the source view both read.
#include <optional>
#include <string>
#include <vector>

namespace rpl::backends::detail {

/// Fields of one CSV line, quotes removed ("" inside quotes is a quote).
std::vector<std::string> csv_fields(const std::string& line);

/// "1,234.5" -> 1234.5; nothing for "-", "n/a" and the like.
std::optional<double> csv_number(std::string text);

}  // namespace rpl::backends::detail
