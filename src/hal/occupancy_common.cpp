#include "occupancy_common.hpp"

#include <limits>

namespace rpl::hal::detail {

void apply_limits(OccupancyResult& result, std::vector<OccupancyLimit> limits) {
  int64_t smallest = std::numeric_limits<int64_t>::max();
  for (const auto& l : limits) {
    if (l.workgroups && *l.workgroups < smallest) smallest = *l.workgroups;
  }
  result.limiters.clear();
  for (const auto& l : limits) {
    if (l.workgroups && *l.workgroups == smallest) result.limiters.push_back(l.name);
  }
  result.limiter = result.limiters.empty() ? "" : result.limiters.front();
  result.active_workgroups_per_cu = smallest == std::numeric_limits<int64_t>::max() ? 0 : static_cast<int>(smallest);
  result.limits = std::move(limits);
}

}  // namespace rpl::hal::detail
