#include <rpl/workflow/profile_folder.hpp>

#include <algorithm>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
using Json = nlohmann::json;

std::vector<fs::path> run_databases(const fs::path& folder) {
  std::vector<fs::path> dbs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder / ".rocpd_profile", ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.rfind("run", 0) == 0 && e.path().extension() == ".db") dbs.push_back(e.path());
  }
  std::sort(dbs.begin(), dbs.end());
  return dbs;
}

Json read_json_document(const fs::path& file) {
  auto j = Json::parse(read_file(file, std::uintmax_t{256} << 20), nullptr, false);
  if (j.is_discarded() || !j.is_object()) fail(Errc::bad_input, "{}: not a JSON document", file.string());
  return j;
}

Json optional_json_document(const fs::path& file) {
  std::error_code ec;
  return fs::is_regular_file(file, ec) ? read_json_document(file) : Json(nullptr);
}

std::map<std::string, std::string> roofline_positions(const Json& roofline) {
  std::map<std::string, std::string> positions;
  if (!roofline.is_object()) return positions;
  for (const auto& k : roofline.value("kernels", Json::array())) {
    if (k.is_object() && k.value("name", Json()).is_string() && k.value("roofline_position", Json()).is_string()) {
      positions[k["name"]] = k["roofline_position"];
    }
  }
  return positions;
}

}  // namespace rpl::workflow
