#include <rpl/report/bottleneck_json.hpp>

#include <fmt/format.h>

namespace rpl::report {
namespace {

template <typename T>
Json maybe(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}
Json maybe_rounded(const std::optional<double>& v) { return v ? Json(round6(*v)) : Json(nullptr); }

}  // namespace

Json analysis_json(const analysis::Bottleneck& b) {
  const auto& in = b.inputs;
  const auto* r = in.roofline ? &*in.roofline : nullptr;
  Json j = document_header();
  Json c;
  c["kernel"] = b.kernel;
  c["time_ms"] = round6(in.time_ms);
  c["operational_intensity"] = r ? maybe_rounded(r->operational_intensity) : Json(nullptr);
  c["roofline_position"] = r ? maybe(r->position) : Json(nullptr);
  c["percent_of_roof"] = r ? maybe_rounded(r->percent_of_roof) : Json(nullptr);
  c["critical_path_score"] = maybe_rounded(in.critical_path_score);
  c["bottleneck"] = b.bottleneck;
  c["confidence"] = b.confidence;
  c["reasons"] = b.reasons;
  c["next_steps"] = b.next_steps;
  j["classification"] = std::move(c);
  Json rules = Json::array();
  for (const auto& rule : b.rules) {
    rules.push_back({{"rule", rule.rule},
                     {"fired", rule.fired},
                     {"reason", rule.reason},
                     {"next_step", rule.fired ? Json(rule.next_step) : Json(nullptr)}});
  }
  j["rules"] = std::move(rules);
  j["inputs"] = {{"mean_dispatch_us", round6(in.mean_dispatch_us)},
                 {"gpu_busy_fraction", maybe_rounded(in.gpu_busy_fraction)},
                 {"grid_workgroups", maybe(in.grid_workgroups)},
                 {"compute_units", maybe(in.compute_units)},
                 {"occupancy", maybe_rounded(in.occupancy)},
                 {"occupancy_limiter", in.occupancy_limiter.empty() ? Json(nullptr) : Json(in.occupancy_limiter)},
                 {"dram_percent_of_peak", maybe_rounded(in.dram_percent_of_peak)},
                 {"branch_efficiency", maybe_rounded(in.branch_efficiency)}};
  return j;
}

std::string bottleneck_text(const analysis::Bottleneck& b) {
  std::string text = fmt::format("Bottleneck  {} (confidence {:.2f})\n", b.bottleneck, b.confidence);
  for (const auto& reason : b.reasons) text += "            why: " + reason + "\n";
  if (!b.next_steps.empty()) text += "            try first: " + b.next_steps.front() + "\n";
  return text;
}

}  // namespace rpl::report
