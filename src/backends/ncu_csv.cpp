#include "ncu_csv.hpp"

#include <algorithm>
#include <stdexcept>

#include <rpl/core/error.hpp>

namespace rpl::backends::detail {

std::vector<std::string> csv_fields(const std::string& line) {
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

void fail_if_counters_forbidden(const std::string& pass, const std::string& output, const std::filesystem::path& log) {
  if (output.find("ERR_NVGPUCTRPERM") == std::string::npos) return;
  fail(Errc::missing_tool, "{}: ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or let users "
                           "profile (NVreg_RestrictProfilingToAdminUsers=0); its output: {}",
       pass, log.string());
}

}  // namespace rpl::backends::detail
