#pragma once
// Rates and amounts for people: 2.4e12 B/s -> "2.40 TB/s".
#include <string>
#include <string_view>

namespace rpl {

/// value with a decimal SI prefix (k, M, G, T, P) and two decimals, then unit.
std::string si_units(double value, std::string_view unit);

}  // namespace rpl
