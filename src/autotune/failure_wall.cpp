#include "failure_wall.hpp"

#include <algorithm>
#include <cstdlib>

namespace rpl::autotune {

long step_reach(const SearchSpace& space, size_t p) { return std::max<long>(1, static_cast<long>(space.parameters[p].values.size()) / 5); }

bool steps_past_a_failure(const SearchSpace& space, size_t c, size_t anchor, std::span<const size_t> failures) {
  auto index = [&](size_t configuration, size_t p) { return static_cast<long>(space.value_index(configuration, p)); };
  for (size_t f : failures) {
    bool past = false;
    int rows_off = 0;  // other parameters in which f lies off c's row: a step off counts 1, more 2
    for (size_t p = 0; p < space.parameters.size(); ++p) {
      const long a = index(anchor, p), x = index(c, p), y = index(f, p);
      if (x != a) past = (y - a) * (x - a) > 0 && (x - y) * (x - a) >= 0;  // f past a, c at or past f
      else if (y != x) rows_off += std::abs(y - x) <= step_reach(space, p) ? 1 : 2;
    }
    if (past && rows_off <= 1) return true;
  }
  return false;
}

}  // namespace rpl::autotune
