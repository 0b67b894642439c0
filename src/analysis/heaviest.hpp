#pragma once
// The hottest few of a list (instructions, source lines) by a weight such as stall samples.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace rpl::analysis::detail {

/// The at most n items of positive weight, heaviest first; ties keep their order in items.
template <typename T, typename Weight>
std::vector<const T*> heaviest(const std::vector<T>& items, size_t n, Weight weight) {
  std::vector<const T*> order;
  for (const auto& item : items) {
    if (weight(item) > 0) order.push_back(&item);
  }
  std::stable_sort(order.begin(), order.end(), [&](const T* a, const T* b) { return weight(*a) > weight(*b); });
  if (order.size() > n) order.resize(n);
  return order;
}

}  // namespace rpl::analysis::detail
