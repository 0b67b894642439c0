#pragma once
// Human-readable renderings for stdout.
#include <string>

#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/hal/occupancy.hpp>

namespace rpl::report {

std::string profile_text(const analysis::ProfileSummary& summary);
std::string occupancy_text(const hal::OccupancyResult& occupancy);
std::string inspect_text(const analysis::InspectReport& report);
/// "VGPR 128, AGPR 0, SGPR 32, LDS 16384 B, scratch 0 B"
std::string resources_text(const analysis::ResourceSummary& resources);

}  // namespace rpl::report
