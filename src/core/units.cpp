#include <rpl/core/units.hpp>

#include <array>

#include <fmt/format.h>

namespace rpl {

std::string si_units(double value, std::string_view unit) {
  constexpr std::array<const char*, 6> kPrefixes = {"", "k", "M", "G", "T", "P"};
  size_t p = 0;
  while (value >= 1000 && p + 1 < kPrefixes.size()) value /= 1000, ++p;
  return fmt::format("{:.2f} {}{}", value, kPrefixes[p], unit);
}

}  // namespace rpl
