#include <rpl/report/html_report.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <rpl/analysis/short_names.hpp>

#include "html_optimize.hpp"
#include "ncu_words.hpp"
#include "html_timeline.hpp"

namespace rpl::report {

std::string escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string text_at(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

std::string script_json(const nlohmann::json& j) {
  using Json = nlohmann::json;
  std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += "\\";
  }
  return out;
}

std::string row(const std::string& label, const std::string& id, const std::string& value) {
  return fmt::format("<tr><th>{}</th><td id=\"{}\">{}</td></tr>\n", escaped(label), id, value);
}

namespace {
using Json = nlohmann::json;

// A kernel's short name, its full name on hover.
std::string named(const std::string& full, const std::string& short_name) {
  return short_name == full ? escaped(full) : fmt::format("<span title=\"{}\">{}</span>", escaped(full), escaped(short_name));
}

std::string summary(const HtmlReportInput& in) {
  const Json& p = in.profile;
  std::string html = "<table class=\"summary\">\n";
  const Json& k = p.value("kernel", Json());
  if (k.is_object()) {
    html += row("Dominant kernel", "kernel-name", named(text_at(k, "name"), analysis::short_kernel_name(text_at(k, "name"))));
    html += row("Dispatches", "kernel-dispatches", fmt::format("{}", k.value("dispatches", 0)));
    html += row("Share of GPU time", "kernel-share", fmt::format("{:.1f} %", k.value("time_fraction", 0.0) * 100));
  }
  html += row("Runtime (ms per dispatch)", "runtime-ms", fmt::format("{:.6f}", p.value("runtime_ms", 0.0)));
  const Json& s = p.value("stability", Json());
  if (s.is_object()) {
    html += row("Stability", "stability",
                text_at(s, "classification") == "single_sample"
                    ? std::string("a single sample: no spread to judge")
                    : fmt::format("{}: cv {:.2f} % over {} samples in {} runs", escaped(text_at(s, "classification")),
                                  s.value("cv", 0.0) * 100, s.value("samples", 0), s.value("runs", 0)));
  }
  const Json& gpu = p.value("gpu", Json());
  if (gpu.is_object()) {
    // A profile.json of before product_recorded was written counts as recorded.
    const bool recorded = gpu.value("product_recorded", true);
    html += row("GPU", "gpu",
                escaped(recorded ? text_at(gpu, "product") + " (" + text_at(gpu, "architecture") + ")"
                                 : text_at(gpu, "architecture") + ", product not recorded (taken as " + text_at(gpu, "product") + ")"));
  }
  const Json& o = p.value("occupancy", Json());
  if (o.is_object()) {
    html += row("Occupancy", "occupancy",
                fmt::format("{:.1f} %, limited by {}", o.value("theoretical", 0.0) * 100, escaped(text_at(o, "limiter"))));
  }
  // ncu's own percentages of peak, where analysis.json has them (an Nsight Compute file).
  const Json& inputs = in.analysis.is_object() ? in.analysis.value("inputs", Json()) : Json();
  if (const auto sol = speed_of_light_of(inputs.is_object() ? inputs.value("speed_of_light", Json()) : Json())) {
    html += row("Speed of light (ncu)", "speed-of-light", speed_of_light_figures(*sol) + " of their peaks");
  }
  const Json& c = in.analysis.is_object() ? in.analysis.value("classification", Json()) : Json();
  if (c.is_object()) {
    std::string reasons = "<ul>";
    for (const auto& r : c.value("reasons", Json::array())) reasons += "<li>" + escaped(r.is_string() ? r.get<std::string>() : "") + "</li>";
    reasons += "</ul>";
    std::string steps = "<ul>";
    for (const auto& r : c.value("next_steps", Json::array())) steps += "<li>" + escaped(r.is_string() ? r.get<std::string>() : "") + "</li>";
    steps += "</ul>";
    html += row("Bottleneck", "bottleneck",
                fmt::format("{} (confidence {:.2f})", escaped(text_at(c, "bottleneck")), c.value("confidence", 0.0)));
    html += row("Why", "reasons", reasons);
    html += row("Try first", "next-steps", steps);
  }
  // Nsight Compute's own rules of the kernel, where it wrote the trace: the largest estimates first.
  if (const Json& findings = in.analysis.is_object() ? in.analysis.value("tool_findings", Json()) : Json();
      findings.is_array() && !findings.empty()) {
    std::string items = "<ul>";
    size_t shown = 0;
    for (const auto& f : findings) {
      if (!f.is_object() || shown++ == 5) break;
      const Json& speedup = f.value("speedup", Json());
      const std::string estimate = speedup.is_object() && speedup.value("percent", Json()).is_number()
                                       ? " (" + speedup_estimate(text_at(speedup, "kind"), speedup["percent"].get<double>()) + ")"
                                       : std::string();
      items += "<li><b>" + escaped(text_at(f, "rule")) + "</b>" + escaped(estimate) + ": " + escaped(text_at(f, "text")) + "</li>";
    }
    html += row("ncu says", "tool-findings", items + "</ul>");
  }
  const Json& dag = in.dag;
  if (dag.is_object() && dag.value("critical_path_ns", Json()).is_number()) {
    const double path_ms = dag["critical_path_ns"].get<double>() / 1e6;
    // An ncu file's launches were timed alone: the path is their sum, not a span of the program's.
    const Json& processes = dag.value("processes", Json());
    const bool summed = processes.is_array() && std::any_of(processes.begin(), processes.end(), [](const Json& p) {
      return p.is_object() && p.value("dependencies", std::string()) == "laid_end_to_end";
    });
    html += row("Critical path", "critical-path",
                summed ? fmt::format("{:.3f} ms: the launches' sum (timed one at a time, laid end to end)", path_ms)
                       : fmt::format("{:.3f} ms of a {:.3f} ms span", path_ms, dag.value("makespan_ns", 0.0) / 1e6));
  }
  return html + "</table>\n";
}

std::string kernel_table(const std::vector<ReportKernel>& kernels) {
  std::string html =
      "<table id=\"kernels\" class=\"sortable\">\n<thead><tr><th data-type=\"text\">Kernel</th><th>Dispatches per run</th>"
      "<th>ms per run</th><th>Mean ms</th><th>Share</th><th>Occupancy</th><th data-type=\"text\">Bound</th></tr></thead>\n"
      "<tbody>\n";
  std::vector<std::string> names;
  for (const auto& k : kernels) names.push_back(k.name);
  const auto short_names = analysis::unique_short_names(names);
  for (const auto& k : kernels) {
    // Where the roofline placed no kernel, ncu's percentages of peak say what it came near.
    const std::string bound = !k.bound.empty()   ? k.bound
                              : k.speed_of_light ? speed_of_light_figures(*k.speed_of_light) + " (ncu)"
                                                 : "-";
    const std::string occupancy =
        k.occupancy ? fmt::format("<td data-value=\"{}\">{:.1f} % ({})</td>", *k.occupancy, *k.occupancy * 100, escaped(k.limiter))
                    : std::string("<td data-value=\"-1\">-</td>");
    html += fmt::format(
        "<tr><td>{}</td><td data-value=\"{}\">{:.1f}</td><td data-value=\"{}\">{:.4f}</td><td data-value=\"{}\">{:.4f}</td>"
        "<td data-value=\"{}\">{:.1f} %</td>{}<td>{}</td></tr>\n",
        named(k.name, short_names.at(k.name)), k.dispatches_per_run, k.dispatches_per_run, k.per_run_ms, k.per_run_ms, k.mean_ms, k.mean_ms, k.share,
        k.share * 100, occupancy, escaped(bound));
  }
  return html + "</tbody></table>\n";
}

// Whether a kernel of roofline.json has a point on the chart (the page's script draws the same ones).
bool has_roofline_point(const Json& roofline) {
  for (const auto& k : roofline.value("kernels", Json::array())) {
    const auto positive = [&](const char* key) { return k.is_object() && k.value(key, Json()).is_number() && k[key].get<double>() > 0; };
    if (positive("operational_intensity") && positive("achieved_flops_per_s")) return true;
  }
  return false;
}

// The page's own script: the charts from the embedded documents, and sorting of the table.
constexpr const char* kPageScript = R"js(
(function () {
  const data = JSON.parse(document.getElementById('rpl-data').textContent);
  Chart.defaults.animation = false;

  function rooflineChart() {
    const canvas = document.getElementById('roofline');
    const r = data.roofline;
    if (!r || !r.kernels) { canvas.dataset.points = '0'; return; }
    const points = r.kernels.filter(k => k.operational_intensity > 0 && k.achieved_flops_per_s > 0);
    const total = points.reduce((s, k) => s + k.time_ms, 0) || 1;
    const xs = points.map(k => k.operational_intensity);
    const xmin = Math.min(0.01, ...xs) / 2, xmax = Math.max(1000, ...xs) * 2;
    const datasets = [{
      type: 'bubble', label: 'kernels', backgroundColor: 'rgba(220, 80, 40, 0.6)',
      data: points.map(k => ({ x: k.operational_intensity, y: k.achieved_flops_per_s,
                               r: 4 + 16 * Math.sqrt(k.time_ms / total), name: k.name, time_ms: k.time_ms,
                               clock_mhz: k.clock_mhz }))
    }];
    const bw = r.ceilings && r.ceilings.bytes_per_s || {}, fl = r.ceilings && r.ceilings.flops_per_s || {};
    const peak = Math.max(0, ...Object.values(fl).filter(v => typeof v === 'number'));
    for (const [level, b] of Object.entries(bw)) {
      if (typeof b !== 'number' || !(peak > 0)) continue;
      datasets.push({ type: 'line', label: level + ' bandwidth', pointRadius: 0, borderWidth: 1,
                      data: [{ x: xmin, y: b * xmin }, { x: peak / b, y: peak }] });
    }
    for (const [kind, f] of Object.entries(fl)) {
      if (typeof f !== 'number') continue;
      datasets.push({ type: 'line', label: kind + ' peak', pointRadius: 0, borderWidth: 1, borderDash: [4, 4],
                      data: [{ x: xmin, y: f }, { x: xmax, y: f }] });
    }
    const palette = ['#1f77b4', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
    datasets.slice(1).forEach((d, i) => { d.borderColor = d.backgroundColor = palette[i % palette.length]; });
    new Chart(canvas, {
      data: { datasets },
      options: {
        scales: { x: { type: 'logarithmic', title: { display: true, text: 'FLOP per byte (DRAM)' } },
                  y: { type: 'logarithmic', title: { display: true, text: 'FLOP/s' } } },
        plugins: { tooltip: { callbacks: { label: c => c.raw.name
          ? c.raw.name + ': ' + c.raw.time_ms.toFixed(3) + ' ms, ' + c.raw.x.toPrecision(3) + ' FLOP/B, ' + (c.raw.y / 1e12).toPrecision(3) + ' TFLOP/s'
            + (c.raw.clock_mhz ? ', run at ' + c.raw.clock_mhz.toFixed(0) + ' MHz' : '')
            + (c.raw.clock_mhz && r.ceilings && r.ceilings.clock_mhz ? ' (peaks drawn at ' + r.ceilings.clock_mhz.toFixed(0) + ' MHz)' : '')
          : c.dataset.label } } }
      }
    });
    canvas.dataset.points = String(points.length);
  }

  function barChart(id, values, label) {
    const canvas = document.getElementById(id);
    const entries = Object.entries(values || {}).filter(([, v]) => typeof v === 'number' && v > 0).sort((a, b) => b[1] - a[1]);
    if (!entries.length) { canvas.dataset.points = '0'; canvas.parentElement.hidden = true; return; }
    new Chart(canvas, { type: 'bar', data: { labels: entries.map(e => e[0]),
      datasets: [{ label, data: entries.map(e => e[1] * 100), backgroundColor: 'rgba(40, 110, 200, 0.7)' }] },
      options: { indexAxis: 'y', scales: { x: { title: { display: true, text: 'percent' } } } } });
    canvas.dataset.points = String(entries.length);
  }

  function sortable(table) {
    const heads = table.querySelectorAll('th');
    heads.forEach((th, column) => th.addEventListener('click', () => {
      const body = table.tBodies[0];
      const descending = th.dataset.order !== 'desc';
      heads.forEach(h => delete h.dataset.order);
      th.dataset.order = descending ? 'desc' : 'asc';
      const key = tr => { const td = tr.cells[column]; return th.dataset.type === 'text' ? td.textContent : parseFloat(td.dataset.value); };
      const rows = Array.from(body.rows).sort((a, b) => {
        const x = key(a), y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * (descending ? -1 : 1);
      });
      rows.forEach(tr => body.appendChild(tr));
    }));
  }

  rooflineChart();
  timelineSelfTest(timelineChart(data));
  const stalls = data.analysis && data.analysis.stalls;
  barChart('stalls', stalls && stalls.stalls, 'share of stalled time');
  barChart('mix', stalls && stalls.instruction_mix, 'share of instructions');
  document.querySelectorAll('table.sortable').forEach(sortable);
  document.body.dataset.loadedMs = performance.now().toFixed(0);
  document.body.dataset.ready = 'yes';
})();
)js";

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
h1, td:first-child, table.summary td { overflow-wrap: anywhere; }
table { border-collapse: collapse; } th, td { padding: 0.25em 0.8em; text-align: left; vertical-align: top; }
table.summary th { color: #555; font-weight: normal; }
table.sortable th { cursor: pointer; border-bottom: 1px solid #999; }
table.sortable td { border-bottom: 1px solid #eee; font-variant-numeric: tabular-nums; }
table.sortable td:first-child { min-width: 16em; }
table.sortable td:not(:first-child) { text-align: right; white-space: nowrap; }
table.sortable td.text { text-align: left; white-space: normal; }
.chart { max-width: 900px; }
.timeline { position: relative; width: 100%; }
.toolbar button { margin-right: 0.4em; } .toolbar .hint { color: #777; margin-left: 1em; font-size: 0.9em; }
)css";

}  // namespace

std::string html_report(const HtmlReportInput& in) {
  Json data = {{"profile", in.profile}, {"roofline", in.roofline}, {"analysis", in.analysis}, {"timeline", in.timeline}};
  const std::string title = in.profile.value("kernel", Json()).is_object()
                                ? "rocm-perf: " + analysis::short_kernel_name(text_at(in.profile["kernel"], "name"))
                                : std::string("rocm-perf report");
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escaped(title) +
                     "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" + escaped(title) + "</h1>\n";
  html += "<h2>Summary</h2>\n" + summary(in);
  html += optimize_section(in.optimize);
  html += "<h2>Roofline</h2>\n<div class=\"chart\"><canvas id=\"roofline\"></canvas></div>\n";
  if (!in.roofline.is_object()) {
    html += "<p>No roofline: profile with <code>--roofline</code>.</p>\n";
  } else if (!has_roofline_point(in.roofline)) {
    html += "<p>No kernel has measured FLOPs and bytes, so only the ceilings are drawn: profile with "
            "<code>--roofline</code> (it needs the GPU's counters).</p>\n";
  }
  html += timeline_section(in.timeline, in.timeline_source);
  html += "<h2>Kernels</h2>\n" + kernel_table(in.kernels);
  html += "<div class=\"chart\"><h2>Stalls</h2><canvas id=\"stalls\"></canvas></div>\n";
  html += "<div class=\"chart\"><h2>Instruction mix</h2><canvas id=\"mix\"></canvas></div>\n";
  html += "<script type=\"application/json\" id=\"rpl-data\">" + script_json(data) + "</script>\n";
  html += "<script>\n" + in.chart_js + "\n</script>\n<script>" + timeline_script() + kPageScript + "</script>\n</body>\n</html>\n";
  return html;
}

std::optional<analysis::SpeedOfLight> speed_of_light_of(const nlohmann::json& record) {
  if (!record.is_object()) return std::nullopt;
  auto number = [&](const char* key) {
    const nlohmann::json& v = record.value(key, nlohmann::json());
    return v.is_number() ? std::optional(v.get<double>()) : std::nullopt;
  };
  analysis::SpeedOfLight sol;
  if (const auto n = number("measured_dispatches"); n && *n >= 0 && *n < 1e15) sol.measured_dispatches = static_cast<size_t>(*n);
  sol.sm_percent = number("sm_percent");
  sol.memory_percent = number("memory_percent");
  sol.dram_percent = number("dram_percent");
  return sol;
}

}  // namespace rpl::report
