#include <rpl/report/replay_json.hpp>

#include <fmt/format.h>

#include <rpl/report/json_documents.hpp>

namespace rpl::report {

nlohmann::ordered_json memory_comparison_json(const isolate::MemoryComparison& result, const isolate::MemoryImage& a,
                                              const isolate::MemoryImage& b, const isolate::CompareOptions& options) {
  Json j = document_header();
  j["a"] = a.dir.string();
  j["b"] = b.dir.string();
  j["element_type"] = std::string(isolate::element_type_name(options.type));
  j["rtol"] = options.rtol;
  j["atol"] = options.atol;
  j["equal"] = result.equal();
  j["bytes"] = result.bytes;
  Json regions = Json::array();
  for (const auto& r : result.regions) {
    Json first;
    if (r.first_offset) first = {{"offset", *r.first_offset}, {"a", r.first_a}, {"b", r.first_b}};
    regions.push_back({{"base", isolate::hex_address(r.region.base)},
                       {"size", r.region.size},
                       {"kind", r.region.kind},
                       {"elements", r.elements},
                       {"differing", r.differing},
                       {"first_difference", first},
                       {"max_abs_error", r.max_abs_error},
                       {"max_rel_error", r.max_rel_error}});
  }
  j["regions"] = regions;
  return j;
}

std::string memory_comparison_text(const isolate::MemoryComparison& result, const isolate::CompareOptions& options) {
  const auto type = isolate::element_type_name(options.type);
  const std::string tolerance =
      options.type == isolate::ElementType::bytes ? "bitwise" : fmt::format("{}, rtol {:g}, atol {:g}", type, options.rtol, options.atol);
  if (result.equal()) {
    return fmt::format("equal: {} regions, {} bytes ({})\n", result.regions.size(), result.bytes, tolerance);
  }
  size_t differing = 0;
  std::string lines;
  for (const auto& r : result.regions) {
    if (!r.differing) continue;
    ++differing;
    lines += fmt::format("  region {} ({} bytes, {}): {} of {} {} differ; first at byte {}: {} vs {}", isolate::hex_address(r.region.base),
                         r.region.size, r.region.kind, r.differing, r.elements,
                         options.type == isolate::ElementType::bytes ? "bytes" : std::string(type) + " elements", *r.first_offset,
                         r.first_a, r.first_b);
    if (options.type != isolate::ElementType::bytes) lines += fmt::format("; max abs error {:.3g}", r.max_abs_error);
    lines += "\n";
  }
  return fmt::format("different: {} of {} regions ({})\n", differing, result.regions.size(), tolerance) + lines;
}

}  // namespace rpl::report
