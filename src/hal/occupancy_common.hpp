#pragma once
#include <rpl/hal/occupancy.hpp>

namespace rpl::hal::detail {

/// Sets limits, active_workgroups_per_cu (the smallest limit), limiter (the first smallest) and limiters.
void apply_limits(OccupancyResult& result, std::vector<OccupancyLimit> limits);

}  // namespace rpl::hal::detail
