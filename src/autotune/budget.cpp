#include <rpl/autotune/budget.hpp>

#include <cctype>
#include <stdexcept>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

// "1h30m" -> 5400: numbers each followed by s, m or h; none when text is not such a time.
std::optional<double> seconds_of(const std::string& text) {
  double total = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t used = 0;
    const double v = std::stod(text.substr(at), &used);
    at += used;
    if (at >= text.size() || v < 0) return std::nullopt;
    const char unit = text[at++];
    if (unit == 's') total += v;
    else if (unit == 'm') total += 60 * v;
    else if (unit == 'h') total += 3600 * v;
    else return std::nullopt;
  }
  return total > 0 ? std::optional(total) : std::nullopt;
}

}  // namespace

void apply_budget(const std::string& text, TuneOptions& options) {
  if (text.empty()) return;
  try {
    if (std::isalpha(static_cast<unsigned char>(text.back()))) {
      const auto seconds = seconds_of(text);
      if (!seconds) throw std::invalid_argument(text);
      options.time_budget_seconds = *seconds;
      return;
    }
    size_t used = 0;
    if (text.back() == '%') {
      const double pct = std::stod(text.substr(0, text.size() - 1), &used);
      if (used != text.size() - 1 || pct <= 0 || pct > 100) throw std::invalid_argument(text);
      options.budget_fraction = pct / 100;
      return;
    }
    const double v = std::stod(text, &used);
    if (used != text.size() || v <= 0) throw std::invalid_argument(text);
    if (v < 1) options.budget_fraction = v;
    else if (v == static_cast<double>(static_cast<size_t>(v))) options.budget = static_cast<size_t>(v);
    else throw std::invalid_argument(text);
  } catch (const std::exception&) {
    fail(Errc::bad_input, "--budget '{}': give a count of configurations (45), a fraction (0.2), a percentage (20%) or a time "
                          "(90s, 20m, 1h30m)", text);
  }
}

}  // namespace rpl::autotune
