#pragma once
// What `diff` and `report` read back from a profile folder (rocm-perf profile --out, analyze --out).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>

namespace rpl::workflow {

/// The folder's run databases, .rocpd_profile/run*.db, in name order (none for analyze --out).
std::vector<std::filesystem::path> run_databases(const std::filesystem::path& folder);

/// A JSON document (an object); Error(bad_input) naming the file otherwise.
nlohmann::json read_json_document(const std::filesystem::path& file);

/// As read_json_document, or null where the file does not exist.
nlohmann::json optional_json_document(const std::filesystem::path& file);

/// Each kernel's roofline position (memory_bound, compute_bound) from roofline.json; empty for null.
std::map<std::string, std::string> roofline_positions(const nlohmann::json& roofline);

/// What read gives (a profile, a page), where a document of path is not as rocm-perf writes it (a
/// field of another type, edited by hand or by another version) Error(bad_input) naming path, not
/// an internal error.
template <class Read>
auto as_written(const std::filesystem::path& path, Read&& read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    fail(Errc::bad_input, "{}: a JSON document here is not as rocm-perf writes it ({})", path.string(), e.what());
  }
}

}  // namespace rpl::workflow
