#include "html_optimize.hpp"

#include <optional>

#include <fmt/format.h>

#include "html_timeline.hpp"

namespace rpl::report {
namespace {
using Json = nlohmann::json;

// The value at a path of objects, if every step is there.
const Json* at(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = &j;
  for (const char* key : path) {
    if (!v->is_object() || !v->contains(key)) return nullptr;
    v = &(*v)[key];
  }
  return v;
}

std::optional<double> number_at(const Json& j, std::initializer_list<const char*> path) {
  const Json* v = at(j, path);
  return v && v->is_number() ? std::optional(v->get<double>()) : std::nullopt;
}

// A numeric cell that sorts by its value; "-" (sorted last) where there is none.
std::string cell(std::optional<double> value, const std::string& format, const std::string& suffix = "") {
  if (!value) return "<td data-value=\"-1e300\">-</td>";
  return fmt::format("<td data-value=\"{}\">{}{}</td>", *value, fmt::format(fmt::runtime(format), *value), suffix);
}

std::string summary(const Json& o) {
  std::string html = "<table class=\"summary\">\n";
  const auto add = [&](const char* label, const char* id, const std::string& value) { html += row(label, id, value); };
  add("Kernel", "optimize-kernel", escaped(text_at(o.value("kernel", Json()), "name")) + " in " + escaped(text_at(o, "source")));
  const auto share = number_at(o, {"baseline", "critical_path_share"});
  const auto ceiling = number_at(o, {"baseline", "amdahl_ceiling"});
  if (share) {
    add("Share of the critical path", "optimize-share",
        fmt::format("{:.1f} %{}", *share * 100, ceiling ? fmt::format(" (Amdahl's ceiling for the program {:.2f}x)", *ceiling) : ""));
  }
  const Json& best = o.value("best", Json());
  if (best.is_object()) {
    const auto number = [&](const char* key) { return number_at(best, {key}).value_or(0); };
    const Json* applied = at(best, {"applied"});
    add("Best", "optimize-best",
        fmt::format("candidate {:.0f}: {:.2f}x on replay, the kernel {:+.1f} % and the critical path {:+.1f} % in the program{}",
                    number("id"), number("kernel_speedup"), number("program_kernel_change_pct"), number("critical_path_change_pct"),
                    applied && *applied == true ? "; applied" : ""));
  } else {
    add("Best", "optimize-best", "none: no candidate was both correct and faster");
  }
  std::string rejected;
  if (const Json* rejections = at(o, {"rejections"}); rejections && rejections->is_object()) {
    for (const auto& [stage, count] : rejections->items()) {
      rejected += fmt::format("{}{} {}", rejected.empty() ? "" : ", ", escaped(stage), count.is_number() ? count.get<long>() : 0);
    }
  }
  add("Rejected, by stage", "optimize-rejections", rejected.empty() ? "none" : rejected);
  if (const auto shapes = number_at(o, {"oracle_shapes"})) {
    add("Input shapes proven on", "optimize-shapes",
        fmt::format("{:.0f}{}", *shapes, *shapes == 1 ? " (--check-args with another shape adds a second)" : ""));
  }
  if (const Json* ran = at(o, {"sanitizer", "ran"}); ran && ran->is_boolean()) {
    add("Sanitizer", "optimize-sanitizer",
        *ran ? std::string("racecheck, synccheck and memcheck on each correct candidate")
             : "not run: " + escaped(text_at(o.value("sanitizer", Json()), "reason")));
  }
  if (const auto seconds = number_at(o, {"elapsed_seconds"})) add("Run time", "optimize-seconds", fmt::format("{:.1f} s", *seconds));
  return html + "</table>\n";
}

std::string candidate_rows(const Json& o) {
  std::string html;
  const Json* candidates = at(o, {"candidates"});
  if (!candidates || !candidates->is_array()) return html;
  for (const auto& c : *candidates) {
    if (!c.is_object()) continue;
    const double id = number_at(c, {"id"}).value_or(0);
    const auto occupancy = number_at(c, {"resources", "occupancy"});
    std::string why = text_at(c, "stage").empty() ? "" : text_at(c, "stage") + ": " + text_at(c, "reason");
    if (const Json* advisories = at(c, {"advisories"}); advisories && advisories->is_array()) {
      for (const auto& a : *advisories) why += (why.empty() ? "" : "; ") + std::string("advisory, ") + text_at(a, "guard") + ": " + text_at(a, "reason");
    }
    html += fmt::format("<tr class=\"{}\"><td>{}</td><td data-value=\"{}\">{}</td><td class=\"text\">{}</td>", escaped(text_at(c, "verdict")),
                        escaped(text_at(c.value("origin", Json()), "description")), id, id,
                        escaped(text_at(c, "verdict")));
    const Json* path_verdict = at(c, {"program", "critical_path", "verdict"});
    html += cell(number_at(c, {"resources", "registers_per_thread"}), "{:.0f}");
    html += cell(occupancy ? std::optional(*occupancy * 100) : std::nullopt, "{:.0f} %");
    html += cell(number_at(c, {"replay", "speedup"}), "{:.3f}x");
    html += cell(number_at(c, {"program", "kernel_change_pct"}), "{:+.1f} %");
    html += cell(number_at(c, {"program", "critical_path", "change_pct"}), "{:+.1f} %",
                 path_verdict && path_verdict->is_string() ? " (" + escaped(path_verdict->get<std::string>()) + ")" : "");
    html += "<td class=\"text\">" + escaped(why) + "</td></tr>\n";
  }
  return html;
}

}  // namespace

std::string optimize_section(const Json& o) {
  if (!o.is_object()) return "";
  return "<h2>Optimizer candidates</h2>\n" + summary(o) +
         "<table id=\"candidates\" class=\"sortable\">\n<thead><tr><th data-type=\"text\">Proposal</th><th>#</th>"
         "<th data-type=\"text\">Verdict</th><th>Registers</th><th>Occupancy</th><th>Replay speedup</th>"
         "<th>Kernel in the program</th><th>Critical path</th><th data-type=\"text\">Stopped at, advisories</th></tr></thead>\n<tbody>\n" +
         candidate_rows(o) + "</tbody></table>\n";
}

}  // namespace rpl::report
