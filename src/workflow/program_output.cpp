#include "program_output.hpp"

#include <cmath>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include <rpl/core/files.hpp>
#include <rpl/isolate/memory_compare.hpp>

namespace rpl::workflow {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

const std::regex& number_pattern() {
  static const std::regex pattern(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  return pattern;
}

// Whether two lines say the same: the text between numbers equal, each number within the
// tolerance of the memory comparisons.
bool same_line(const std::string& expected, const std::string& got, double rtol, double atol) {
  if (expected == got) return true;
  if (rtol <= 0 && atol <= 0) return false;
  const auto& pattern = number_pattern();
  std::sregex_iterator a(expected.begin(), expected.end(), pattern), b(got.begin(), got.end(), pattern), end;
  size_t a_pos = 0, b_pos = 0;
  for (; a != end && b != end; ++a, ++b) {
    if (expected.substr(a_pos, static_cast<size_t>(a->position()) - a_pos) != got.substr(b_pos, static_cast<size_t>(b->position()) - b_pos)) {
      return false;
    }
    const double x = std::stod(a->str()), y = std::stod(b->str());
    if (!isolate::within_tolerance(y, x, rtol, atol)) return false;
    a_pos = static_cast<size_t>(a->position() + a->length());
    b_pos = static_cast<size_t>(b->position() + b->length());
  }
  return a == end && b == end && expected.substr(a_pos) == got.substr(b_pos);
}

}  // namespace

std::string matching_output_lines(const std::filesystem::path& log, const std::string& regex) {
  const std::regex pick(regex);
  std::string out;
  std::error_code ec;
  if (!std::filesystem::exists(log, ec)) return out;
  for (const auto& line : lines_of(read_file(log))) {
    if (std::regex_search(line, pick)) out += line + "\n";
  }
  return out;
}

std::optional<std::string> output_difference(const std::string& expected, const std::string& got, double rtol, double atol) {
  const auto a = lines_of(expected), b = lines_of(got);
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= b.size()) return fmt::format("the line '{}' is missing from its output", a[i]);
    if (i >= a.size()) return fmt::format("its output has the line '{}' the original's has not", b[i]);
    if (!same_line(a[i], b[i], rtol, atol)) return fmt::format("it printed '{}' where the original printed '{}'", b[i], a[i]);
  }
  return std::nullopt;
}

}  // namespace rpl::workflow
