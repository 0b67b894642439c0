#pragma once
// Which local steps bring a value not yet measured near the anchor: the order bayes takes an
// anchor's steps in, apart so that it can be tested on its own.
#include <cstddef>
#include <span>
#include <vector>

#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

/// The values each parameter takes among the configurations measured (run or failed) near an
/// anchor: within a step's reach of it (step_reach) in every parameter.
class ValuesNear {
 public:
  ValuesNear(const SearchSpace& space, size_t anchor, std::span<const size_t> measured);

  /// Whether configuration c gives a parameter that one step crosses several values of a value
  /// that none of those measured near the anchor has. A parameter a step crosses one value of does
  /// not count: every single step along it would be new, and the order would say nothing.
  bool brings_new(size_t c) const;

 private:
  const SearchSpace& space_;
  std::vector<std::vector<bool>> seen_;  // per parameter, per value index
};

}  // namespace rpl::autotune
