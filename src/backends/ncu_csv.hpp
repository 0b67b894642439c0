#pragma once
// The pieces of ncu's CSV output that the counter pass and the source view both read.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rpl::backends::detail {

/// Fields of one CSV line, quotes removed ("" inside quotes is a quote).
std::vector<std::string> csv_fields(const std::string& line);

/// "1,234.5" -> 1234.5; nothing for "-", "n/a" and the like.
std::optional<double> csv_number(std::string text);

/// Fails with missing_tool when ncu's output (kept in log) says the driver keeps the performance
/// counters from this user (ERR_NVGPUCTRPERM); `pass` names the pass in the message.
void fail_if_counters_forbidden(const std::string& pass, const std::string& output, const std::filesystem::path& log);

}  // namespace rpl::backends::detail
