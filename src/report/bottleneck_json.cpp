#include <rpl/report/bottleneck_json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rpl/core/text.hpp>
#include <rpl/report/roofline_json.hpp>

#include "ncu_words.hpp"

namespace rpl::report {
namespace {

template <typename T>
Json maybe(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}
Json maybe_rounded(const std::optional<double>& v) { return v ? Json(round6(*v)) : Json(nullptr); }

Json fractions(const std::map<std::string, double>& f) {
  Json j = Json::object();
  for (const auto& [name, value] : f) j[name] = round6(value);
  return j;
}

Json hot_json(const std::vector<analysis::HotInstruction>& hot) {
  Json j = Json::array();
  for (const auto& h : hot) {
    j.push_back({{"isa", h.isa},
                 {"vaddr", h.vaddr},
                 {"source", h.source},
                 {"stall", h.stall},
                 {"hits", h.hits},
                 {"reason", h.reason.empty() ? Json(nullptr) : Json(h.reason)}});
  }
  return j;
}

Json hot_lines_json(const std::vector<analysis::HotLine>& lines) {
  Json j = Json::array();
  for (const auto& l : lines) {
    j.push_back({{"file", l.file}, {"line", l.line}, {"text", l.text}, {"samples", l.samples}, {"share", round6(l.share)}});
  }
  return j;
}

Json findings_json(const std::vector<analysis::KernelFinding>& findings) {
  Json j = Json::array();
  for (const auto& f : findings) {
    j.push_back({{"tool", "ncu"},
                 {"section", f.section},
                 {"rule", f.rule},
                 {"type", f.type},
                 {"speedup",
                  f.speedup_percent ? Json{{"kind", f.speedup_kind}, {"percent", round6(*f.speedup_percent)}} : Json(nullptr)},
                 {"launches", f.launches},
                 {"text", f.text}});
  }
  return j;
}

Json stalls_json(const analysis::StallAnalysis& s) {
  return {{"measured_dispatches", s.measured_dispatches},
          {"issue_slot_utilization", maybe_rounded(s.issue_slot_utilization)},
          {"ipc", maybe_rounded(s.ipc)},
          {"branch_efficiency", maybe_rounded(s.branch_efficiency)},
          {"stalls", fractions(s.stalls)},
          {"vendor_stalls", fractions(s.vendor_stalls)},
          {"instruction_mix", fractions(s.instruction_mix)},
          {"stall_fraction", maybe_rounded(s.stall_fraction)},
          {"idle_fraction", maybe_rounded(s.idle_fraction)},
          {"vmem_latency_cycles", maybe_rounded(s.vmem_latency_cycles)},
          {"hot_instructions", hot_json(s.hot)},
          {"hot_lines", hot_lines_json(s.hot_lines)}};
}

// Largest first, then by name.
std::vector<std::pair<std::string, double>> ranked(const std::map<std::string, double>& f) {
  std::vector<std::pair<std::string, double>> v(f.begin(), f.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

}  // namespace

Json analysis_json(const analysis::Bottleneck& b, const analysis::StallAnalysis* other_kernel_stalls) {
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
  j["stalls"] = b.stalls ? stalls_json(*b.stalls) : Json(nullptr);
  j["tool_findings"] = findings_json(b.tool_findings);
  if (other_kernel_stalls) {
    j["other_kernel_stalls"] = {{"kernel", other_kernel_stalls->kernel}, {"stalls", stalls_json(*other_kernel_stalls)}};
  }
  j["inputs"] = {{"mean_dispatch_us", round6(in.mean_dispatch_us)},
                 {"gpu_busy_fraction", maybe_rounded(in.gpu_busy_fraction)},
                 {"grid_workgroups", maybe(in.grid_workgroups)},
                 {"compute_units", maybe(in.compute_units)},
                 {"occupancy", maybe_rounded(in.occupancy)},
                 {"occupancy_limiter", in.occupancy_limiter.empty() ? Json(nullptr) : Json(in.occupancy_limiter)},
                 {"dram_percent_of_peak", maybe_rounded(in.dram_percent_of_peak)},
                 {"speed_of_light", in.speed_of_light ? speed_of_light_json(*in.speed_of_light) : Json(nullptr)},
                 {"branch_efficiency", maybe_rounded(in.branch_efficiency)}};
  return j;
}

std::string bottleneck_text(const analysis::Bottleneck& b) {
  std::string text = fmt::format("Bottleneck  {} (confidence {:.2f})\n", b.bottleneck, b.confidence);
  for (const auto& reason : b.reasons) text += "            why: " + reason + "\n";
  if (!b.next_steps.empty()) text += "            try first: " + b.next_steps.front() + "\n";
  return text;
}

std::string speed_of_light_figures(const analysis::SpeedOfLight& sol) {
  std::string figures;
  for (const auto& [unit, percent] : {std::pair{"SM", sol.sm_percent}, std::pair{"memory", sol.memory_percent},
                                      std::pair{"DRAM", sol.dram_percent}}) {
    if (percent) figures += fmt::format("{}{} {:.1f} %", figures.empty() ? "" : ", ", unit, *percent);
  }
  return figures;
}

std::string speedup_estimate(const std::string& kind, double percent) {
  return fmt::format("estimated {} speedup {:.1f} %", kind, percent);
}

std::string speed_of_light_text(const analysis::SpeedOfLight& sol) {
  return fmt::format("SOL         {} of their peaks (ncu's speed of light, {})\n", speed_of_light_figures(sol),
                     counted(sol.measured_dispatches, "launch", "launches"));
}

std::string tool_findings_text(const std::vector<analysis::KernelFinding>& findings) {
  std::string rules;
  std::set<std::string> named;  // a rule ncu reported of several units: once, at its largest
  for (const auto& f : findings) {
    if (!f.speedup_percent || named.size() == 4) break;  // those with an estimate come first
    if (!named.insert(f.rule).second) continue;
    rules += fmt::format("{}{} ({})", rules.empty() ? "" : ", ", f.rule, speedup_estimate(f.speedup_kind, *f.speedup_percent));
  }
  return rules.empty() ? "" : "ncu says    " + rules + "; its words are in analysis.json\n";
}

std::string stalls_text(const analysis::StallAnalysis& s, const std::string& of) {
  std::string text = of.empty() ? "Stalls      " : fmt::format("Stalls of   {}\n            ", of);
  size_t shown = 0;
  for (const auto& [reason, f] : ranked(s.stalls)) {
    if (shown++ == 4) break;
    text += fmt::format("{}{} {:.0f} %", shown > 1 ? ", " : "", reason, 100 * f);
  }
  if (s.issue_slot_utilization) text += fmt::format("; issue slots {:.0f} % busy", 100 * *s.issue_slot_utilization);
  if (s.ipc) text += fmt::format(", IPC {:.2f}", *s.ipc);
  if (s.branch_efficiency) text += fmt::format(", branch efficiency {:.0f} %", 100 * *s.branch_efficiency);
  if (s.stall_fraction) text += fmt::format("; stalled {:.0f} % of its cycles", 100 * *s.stall_fraction);
  if (s.vmem_latency_cycles) text += fmt::format(", vector memory latency {:.0f} cycles", *s.vmem_latency_cycles);
  text += "\n";
  if (!s.instruction_mix.empty()) {
    text += "            mix";
    for (const auto& [category, f] : ranked(s.instruction_mix)) text += fmt::format(" {} {:.0f} %", category, 100 * f);
    text += "\n";
  }
  if (!s.hot_lines.empty()) {
    text += "            hot lines";
    for (size_t i = 0; i < s.hot_lines.size() && i < 3; ++i) {
      const auto& l = s.hot_lines[i];
      text += fmt::format("{} {}:{} {:.0f} %", i ? "," : "", std::filesystem::path(l.file).filename().string(), l.line, 100 * l.share);
    }
    text += " of stall samples\n";
  }
  if (!s.hot.empty() && !s.hot.front().reason.empty()) {
    const auto& h = s.hot.front();
    text += fmt::format("            hottest instruction +0x{:x} {} ({} samples, mostly {})\n", h.vaddr, h.isa, h.stall, h.reason);
  }
  return text;
}

}  // namespace rpl::report
