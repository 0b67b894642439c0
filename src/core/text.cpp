#include <rpl/core/text.hpp>

#include <cctype>

namespace rpl {

namespace {
bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
}  // namespace

std::string trimmed(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::string last_line(std::string_view text, size_t max_chars) {
  while (!text.empty() && space(text.back())) text.remove_suffix(1);  // blank lines at the end
  const size_t newline = text.find_last_of('\n');
  std::string line = trimmed(newline == std::string_view::npos ? text : text.substr(newline + 1));
  if (line.size() > max_chars && max_chars >= 3) line = line.substr(0, max_chars - 3) + "...";
  return line;
}

std::string counted(size_t n, std::string_view noun, std::string_view plural) {
  if (n == 1) return "1 " + std::string(noun);
  return std::to_string(n) + " " + (plural.empty() ? std::string(noun) + "s" : std::string(plural));
}

}  // namespace rpl
