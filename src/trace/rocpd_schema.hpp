#pragma once
// The rocpd v3 schema as rocprofv3 (ROCm 7) writes it, from reference/rocm.md §2.3: every table is
// suffixed with "_" + the process UUID (hyphens as underscores), every row carries the hyphenated
// GUID, and unsuffixed views select from the suffixed tables.
#include <string>
#include <string_view>

namespace rpl::trace::detail {

/// CREATE TABLE statements with the "{{uuid}}" and "{{guid}}" placeholders filled in.
std::string rocpd_tables_sql(std::string_view table_suffix, std::string_view guid);

/// CREATE VIEW rocpd_X AS SELECT * FROM rocpd_X{{uuid}} for every table.
std::string rocpd_views_sql(std::string_view table_suffix);

/// rocpd_metadata rows: schema_version 3, uuid, guid.
std::string rocpd_metadata_sql(std::string_view table_suffix, std::string_view uuid, std::string_view guid);

}  // namespace rpl::trace::detail
