#pragma once
// What `diff` and `report` read back from a profile folder (rocm-perf profile --out, analyze --out).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl::workflow {

/// The folder's run databases, .rocpd_profile/run*.db, in name order (none for analyze --out).
std::vector<std::filesystem::path> run_databases(const std::filesystem::path& folder);

/// A JSON document (an object); Error(bad_input) naming the file otherwise.
nlohmann::json read_json_document(const std::filesystem::path& file);

/// As read_json_document, or null where the file does not exist.
nlohmann::json optional_json_document(const std::filesystem::path& file);

/// Each kernel's roofline position (memory_bound, compute_bound) from roofline.json; empty for null.
std::map<std::string, std::string> roofline_positions(const nlohmann::json& roofline);

}  // namespace rpl::workflow
