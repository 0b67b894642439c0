#pragma once
// JSON documents of the commands (DESIGN.md "Commands"); each has a schema in schemas/.
// Keys keep a fixed order and numbers are rounded, so the same input gives the same bytes.
#include <nlohmann/json.hpp>

#include <rpl/analysis/inspect.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/hal/occupancy.hpp>

namespace rpl::report {

using Json = nlohmann::ordered_json;

inline constexpr const char* kSchemaVersion = "1.0";

/// {schema_version, tool{name, version}} that every document starts with.
Json document_header();

Json occupancy_json(const hal::OccupancyResult& occupancy);
Json profile_json(const analysis::ProfileSummary& summary);
Json resources_json(const analysis::ResourceSummary& resources);
/// The same bytes as dump(inspect_json(report)), written a kernel at a time: the whole tree of a
/// library's 100,000 kernels would take gigabytes.
void write_inspect_json(std::ostream& out, const analysis::InspectReport& report);
Json inspect_json(const analysis::InspectReport& report);

/// Two-space indented text with a final newline.
std::string dump(const Json& document);

/// Rounds to 6 decimals: ns resolution for milliseconds, ample for fractions.
double round6(double value);

}  // namespace rpl::report
