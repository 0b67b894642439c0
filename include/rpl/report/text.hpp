#pragma once
// Human-readable renderings for stdout.
#include <string>

#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/analysis/short_names.hpp>
#include <rpl/hal/occupancy.hpp>

namespace rpl::report {

std::string profile_text(const analysis::ProfileSummary& summary, analysis::NameStyle names = analysis::NameStyle::short_names);
std::string occupancy_text(const hal::OccupancyResult& occupancy);
std::string inspect_text(const analysis::InspectReport& report);
enum class Vendor { amd, nvidia };
/// In the vendor's own words: "VGPR 128, AGPR 0, SGPR 32, LDS 16384 B (static ... + dynamic ...),
/// scratch 0 B" on AMD; "Registers 168 per thread, shared memory 213188 B (static 0 + dynamic
/// 213188), local 0 B" on NVIDIA. (JSON keeps the common AMD names on both, DESIGN.md.)
std::string resources_text(const analysis::ResourceSummary& resources, Vendor vendor);

}  // namespace rpl::report
