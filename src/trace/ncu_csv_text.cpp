#include <rpl/trace/ncu_csv_text.hpp>

#include <algorithm>
#include <stdexcept>

namespace rpl::trace::ncu {

std::vector<std::string> csv_fields(const std::string& line, bool* closed) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      out.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(std::move(field));
  if (closed) *closed = !quoted;
  return out;
}

std::optional<double> csv_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty()) return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    return used == text.size() ? std::optional<double>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace rpl::trace::ncu
