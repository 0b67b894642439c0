#pragma once
// optimize --check-output: the lines of a program's output that a regular expression picks, and
// whether a candidate's lines say the same as the original's (numbers within a relative tolerance).
#include <filesystem>
#include <optional>
#include <string>

namespace rpl::workflow {

/// The lines of log (the program's output) that regex matches, each ending in a newline.
std::string matching_output_lines(const std::filesystem::path& log, const std::string& regex);

/// Why got differs from expected: a line missing or added, or text or a number that differs
/// (numbers count as equal within the tolerance of isolate::within_tolerance, the expected one the
/// reference); none when they agree.
std::optional<std::string> output_difference(const std::string& expected, const std::string& got, double rtol, double atol);

}  // namespace rpl::workflow
