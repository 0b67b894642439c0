#include "values_near.hpp"

#include <cstdlib>

#include "failure_wall.hpp"

namespace rpl::autotune {

ValuesNear::ValuesNear(const SearchSpace& space, size_t anchor, std::span<const size_t> measured) : space_(space), seen_(space.parameters.size()) {
  const size_t parameters = space.parameters.size();
  for (size_t p = 0; p < parameters; ++p) seen_[p].assign(space.parameters[p].values.size(), false);
  auto index = [&](size_t configuration, size_t p) { return static_cast<long>(space.value_index(configuration, p)); };
  for (size_t m : measured) {
    bool near = true;
    for (size_t p = 0; p < parameters && near; ++p) near = std::labs(index(m, p) - index(anchor, p)) <= step_reach(space, p);
    for (size_t p = 0; p < parameters && near; ++p) seen_[p][space.value_index(m, p)] = true;
  }
}

bool ValuesNear::brings_new(size_t c) const {
  for (size_t p = 0; p < seen_.size(); ++p) {
    if (step_reach(space_, p) > 1 && !seen_[p][space_.value_index(c, p)]) return true;
  }
  return false;
}

}  // namespace rpl::autotune
