#include <rpl/report/html_autotune.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "html_timeline.hpp"

namespace rpl::report {
namespace {
using Json = nlohmann::json;

// A configuration's values in the space's order of its parameters (autotune.json's
// space.parameters; a JSON object read back has lost it), any other name after them.
std::string configuration(const Json& c, const Json& order) {
  std::string out;
  if (!c.is_object()) return out;
  auto add = [&](const std::string& name, const Json& value) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value.is_string() ? value.get<std::string>() : value.dump());
  };
  std::vector<std::string> named;
  if (order.is_array()) {
    for (const auto& name : order) {
      if (!name.is_string() || !c.contains(name.get<std::string>())) continue;
      named.push_back(name.get<std::string>());
      add(named.back(), c[named.back()]);
    }
  }
  for (const auto& [name, value] : c.items()) {
    if (std::find(named.begin(), named.end(), name) == named.end()) add(name, value);
  }
  return out;
}

// The space's parameter names, in order (an empty value where autotune.json lacks them).
Json parameter_order(const Json& a) {
  const Json& space = a.contains("space") ? a["space"] : Json();
  return space.is_object() && space.contains("parameters") ? space["parameters"] : Json();
}

// The failed configurations by kind ("3 launch_failed"), or none.
std::string failures(const Json& by_kind) {
  std::string out;
  if (!by_kind.is_object()) return "none";
  for (const auto& [kind, n] : by_kind.items()) {
    if (n.is_number() && n.get<double>() > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n.get<long>(), kind);
  }
  return out.empty() ? "none" : out;
}

std::string number(const Json& v, const char* format = "{:.6g}") {
  return v.is_number() ? fmt::format(fmt::runtime(format), v.get<double>()) : std::string("-");
}

// What guided the search (autotune.json's model), and where the centre of the space was measured:
// the bayes strategy's restart, which decides its smallest budgets.
std::string model_rows(const Json& model, const Json& total, const Json& order) {
  if (!model.is_object()) return row("Model", "autotune-model", "none");
  const std::string kind = text_at(model, "kind");
  const bool process = kind == "gaussian_process_matern52_log";
  std::string what = escaped(kind);
  if (!model.value("fitted", false)) what = "not fitted";
  else if (process) what = "a Gaussian process, last fitted to " + number(model.value("observations", Json()), "{:.0f}") + " configurations";
  else if (kind == "quadratic_ridge_log") what = "a quadratic fit, R² " + number(model.value("r2", Json()), "{:.2f}") + ", cross-validated " + number(model.value("cv_r2", Json()), "{:.2f}");
  std::string html = row("Model", "autotune-model", what);
  const Json& centre = model.value("centre", Json());
  if (process && centre.is_object()) {
    const Json& at = centre.value("measured", Json());
    html += row("Centre of the space", "autotune-centre",
                escaped(configuration(centre.value("configuration", Json()), order)) + ", " +
                    (at.is_number() ? "measured " + number(at, "{:.0f}") + " of " + number(total, "{:.0f}") + " (" + escaped(text_at(centre, "phase")) + ")"
                                     : std::string("not measured")));
  }
  const Json& likeliest = model.value("likeliest_better", Json());
  if (process && likeliest.is_object() && likeliest.value("chance", Json()).is_number() && likeliest.value("margin", Json()).is_number()) {
    html += row("Likeliest to beat the best", "autotune-likeliest",
                escaped(configuration(likeliest.value("configuration", Json()), order)) + ", unmeasured: chance " +
                    number(Json(100 * likeliest["chance"].get<double>()), "{:.0f}") + " % to be " +
                    number(Json(100 * likeliest["margin"].get<double>()), "{:.0f}") + " % better, by the process");
  }
  return html;
}

// How the best's value came to be (autotune.json's best.first_value and best.remeasured): one
// measurement's, or the median of it and those of the rounds that measured it again. Empty where
// the file does not say.
std::string measurements_of_best(const Json& best) {
  const Json& again = best.value("remeasured", Json());
  if (!again.is_array() || !best.value("first_value", Json()).is_number()) return "";
  if (again.empty()) return " (measured once)";
  std::string values = number(best["first_value"]);
  for (const auto& v : again) values += ", " + number(v);
  return fmt::format(" (the median of {} measurements: {})", again.size() + 1, values);
}

std::string summary(const Json& a, const Json& order) {
  const Json none = Json::object();
  const Json& measured = a.value("measured", none).is_object() ? a["measured"] : none;
  std::string phases;
  for (const char* phase : {"spread", "seed", "explore", "guided", "confirm", "random"}) {
    const Json& n = measured.value(phase, Json());
    if (n.is_number() && n.get<double>() > 0) phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", phase, n.get<long>());
  }
  std::string html = "<table class=\"summary\">\n";
  html += row("Space", "autotune-space", escaped(text_at(a.value("space", none), "file")) + ", " +
                                             number(a.value("space", none).value("size", Json()), "{:.0f}") + " configurations");
  html += row("Strategy", "autotune-strategy", escaped(text_at(a, "strategy")));
  html += row("Measured", "autotune-measured",
              fmt::format("{} of a budget of {}{}: {}", number(measured.value("total", Json()), "{:.0f}"),
                          number(a.value("budget", Json()), "{:.0f}"),
                          a.value("budget_seconds", Json()).is_number() ? " or " + number(a["budget_seconds"], "{:g}") + " s" : "",
                          escaped(phases.empty() ? "none" : phases)));
  if (a.contains("failures")) html += row("Failures", "autotune-failures", escaped(failures(a["failures"])));
  const Json& best = a.value("best", Json());
  html += row("Best", "autotune-best",
              best.is_object() ? escaped(configuration(best.value("configuration", Json()), order)) + ": " + number(best.value("value", Json())) +
                                     measurements_of_best(best)
                               : std::string("none: every configuration measured failed"));
  html += model_rows(a.value("model", Json()), measured.value("total", Json()), order);
  std::string warnings;
  for (const auto& w : a.value("warnings", Json::array())) warnings += (warnings.empty() ? "" : ", ") + (w.is_string() ? w.get<std::string>() : "");
  if (!warnings.empty()) html += row("Warnings", "autotune-warnings", escaped(warnings));
  return html + "</table>\n";
}

std::string top_table(const Json& a, const Json& order) {
  std::string html = "<table id=\"top\" class=\"sortable\">\n<thead><tr><th>Rank</th><th data-type=\"text\">Configuration</th>"
                     "<th>Value</th><th data-type=\"text\">Phase</th></tr></thead>\n<tbody>\n";
  for (const auto& t : a.value("top", Json::array())) {
    if (!t.is_object()) continue;
    html += fmt::format("<tr><td data-value=\"{}\">{}</td><td class=\"text\">{}</td><td data-value=\"{}\">{}</td><td class=\"text\">{}</td></tr>\n",
                        number(t.value("rank", Json()), "{:.0f}"), number(t.value("rank", Json()), "{:.0f}"),
                        escaped(configuration(t.value("configuration", Json()), order)), number(t.value("value", Json())),
                        number(t.value("value", Json())), escaped(text_at(t, "phase")));
  }
  return html + "</tbody></table>\n";
}

constexpr const char* kScript = R"js(
(() => {
  const data = JSON.parse(document.getElementById('rpl-data').textContent);
  const canvas = document.getElementById('curve');
  const curve = (data.curve || []).filter(p => p && typeof p.measured === 'number' && typeof p.best_value === 'number');
  const colours = { seed: '#888', spread: '#888', explore: '#c80', guided: '#28c', confirm: '#2a2', random: '#a4a' };
  // The centre of the space, where it was measured, is drawn as a triangle on the curve.
  const centre = data.centre && typeof data.centre.measured === 'number' ? data.centre.measured : null;
  // Under a time budget the curve runs against its clock, up to a line at the budget: what a
  // shorter budget would have found is read off it. Otherwise against the configurations measured.
  const budget = typeof data.budget_seconds === 'number' ? data.budget_seconds : null;
  const timed = budget !== null && curve.every(p => typeof p.seconds === 'number');
  const x = p => timed ? p.seconds : p.measured;
  const datasets = [{ label: 'best so far', stepped: true, data: curve.map(p => ({ x: x(p), y: p.best_value })),
      pointBackgroundColor: curve.map(p => colours[p.phase] || '#000'), borderColor: '#888',
      pointStyle: curve.map(p => p.measured === centre ? 'triangle' : 'circle'), pointRadius: curve.map(p => p.measured === centre ? 7 : 3) }];
  // The best after the rounds that measured the two best again, where any did: a diamond after the
  // curve's last point, since its value (a median) or even its configuration may differ.
  const best = data.best && typeof data.best.value === 'number' && Array.isArray(data.best.remeasured) ? data.best : null;
  const remeasured = best && best.remeasured.length > 0 && curve.length > 0;
  if (remeasured) {
    datasets.push({ label: 're-measured best', data: [{ x: x(curve[curve.length - 1]), y: best.value }],
      pointStyle: 'rectRot', pointRadius: 7, pointBackgroundColor: colours.confirm, borderColor: colours.confirm, showLine: false });
  }
  if (timed && curve.length) {
    const values = curve.map(p => p.best_value).concat(remeasured ? [best.value] : []);
    datasets.push({ label: 'time budget', data: [{ x: budget, y: Math.min(...values) }, { x: budget, y: Math.max(...values) }],
      borderColor: '#c33', borderDash: [6, 4], pointRadius: 0 });
  }
  new Chart(canvas, { type: 'line', data: { datasets },
    options: { animation: false, parsing: false, scales: {
      x: { type: 'linear', min: timed ? 0 : undefined, title: { display: true, text: timed ? 'seconds into the run, on the time budget clock' : 'configurations measured' } },
      y: { title: { display: true, text: 'best value so far' } } } } });
  canvas.dataset.points = String(curve.length);
  canvas.dataset.axis = timed ? 'seconds' : 'configurations';
  if (curve.some(p => p.measured === centre)) canvas.dataset.centre = String(centre);
  if (remeasured) canvas.dataset.remeasured = String(best.value);
  document.querySelectorAll('table.sortable th').forEach((th, column) => th.addEventListener('click', () => {
    const body = th.closest('table').tBodies[0];
    const rows = Array.from(body.rows).sort((a, b) => {
      const x = th.dataset.type === 'text' ? a.cells[column].textContent : parseFloat(a.cells[column].dataset.value);
      const y = th.dataset.type === 'text' ? b.cells[column].textContent : parseFloat(b.cells[column].dataset.value);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    rows.forEach(tr => body.appendChild(tr));
  }));
  document.body.dataset.ready = 'yes';
})();
)js";

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; } th, td { padding: 0.25em 0.8em; text-align: left; vertical-align: top; }
table.summary th { color: #555; font-weight: normal; }
table.sortable th { cursor: pointer; border-bottom: 1px solid #999; }
table.sortable td { border-bottom: 1px solid #eee; font-variant-numeric: tabular-nums; }
.chart { max-width: 900px; }
p.note { color: #555; max-width: 900px; }
)css";

}  // namespace

std::string autotune_report(const Json& a, const std::string& chart_js) {
  const Json curve = a.is_object() && a.value("curve", Json()).is_array() ? a["curve"] : Json::array();
  const Json model = a.is_object() ? a.value("model", Json()) : Json();
  const Json centre = model.is_object() && model.value("centre", Json()).is_object() ? model["centre"] : Json();
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rocm-perf autotune</title>\n<style>" +
                     std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>rocm-perf autotune</h1>\n";
  const Json empty = Json::object();
  const Json& document = a.is_object() ? a : empty;  // a reference: the document is not copied
  const Json order = parameter_order(document);
  html += "<h2>Summary</h2>\n" + summary(document, order);
  html += "<h2>Best so far</h2>\n<div class=\"chart\"><canvas id=\"curve\"></canvas></div>\n"
          "<p class=\"note\">Each point: the best first measurement after a configuration, coloured by the phase that measured it; a "
          "triangle where the centre of the space was measured; a diamond, the best once measured again (the median of its "
          "measurements).</p>\n";
  html += "<h2>Best configurations</h2>\n" + top_table(document, order);
  const Json data{{"curve", curve}, {"centre", centre}, {"best", document.value("best", Json())}, {"budget_seconds", document.value("budget_seconds", Json())}};
  html += "<script type=\"application/json\" id=\"rpl-data\">" + script_json(data) + "</script>\n";
  html += "<script>\n" + chart_js + "\n</script>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace rpl::report
