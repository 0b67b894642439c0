// diff.json: the rendering of a DiffResult (schemas/diff.schema.json).
#include <rpl/report/json_documents.hpp>
#include <rpl/workflow/diff.hpp>

namespace rpl::workflow {
using Json = nlohmann::json;
namespace {

Json side_json(const std::optional<analysis::KernelSide>& s, const DiffProfile& p, const std::string& kernel) {
  if (!s) return nullptr;
  Json j = {{"per_run_ms", report::round6(s->per_run_ms)},
            {"share", report::round6(s->share)},
            {"dispatches_per_run", report::round6(s->dispatches_per_run)}};
  auto bound = p.roofline_position.find(kernel);
  j["bound"] = bound != p.roofline_position.end() ? Json(bound->second) : Json(nullptr);
  const auto occupancy = p.occupancy_of(kernel);
  j["occupancy"] = occupancy ? Json(report::round6(*occupancy)) : Json(nullptr);
  return j;
}

}  // namespace

Json diff_document(const DiffResult& r) {
  Json doc = report::document_header();
  for (const auto* p : {&r.before, &r.after}) {
    doc[p == &r.before ? "before" : "after"] = {{"path", p->path}, {"runs", p->times.runs}, {"gpu", p->gpu ? Json(p->gpu_label()) : Json(nullptr)}};
  }
  Json kernels = Json::array();
  for (const auto& c : r.changes) {
    kernels.push_back({{"name", c.name},
                       {"short_name", r.short_names.at(c.name)},
                       {"before", side_json(c.before, r.before, c.name)},
                       {"after", side_json(c.after, r.after, c.name)},
                       {"change_pct", report::round6(c.change_pct)},
                       {"noise_pct", c.noise_pct ? Json(report::round6(*c.noise_pct)) : Json(nullptr)},
                       {"verdict", analysis::verdict_name(c.verdict)}});
  }
  doc["kernels"] = kernels;
  doc["fail_on_regression_pct"] = r.fail_on_regression_pct ? Json(*r.fail_on_regression_pct) : Json(nullptr);
  Json names = Json::array();
  for (size_t i : r.regressions) names.push_back(r.changes[i].name);
  doc["regressions"] = names;
  doc["warnings"] = r.warnings;
  return doc;
}

}  // namespace rpl::workflow
