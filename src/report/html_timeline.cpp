// The report's timeline: its markup and the script that draws it with Chart.js (floating bars on a
// lane per stream) and zooms and pans it. However many operations the trace has, the chart gets
// at most a few bars per pixel of each lane: operations too narrow to see are merged into one
// span where less than a pixel separates them, and a span's tooltip says how many it holds.
#include "html_timeline.hpp"

#include <string>

#include <fmt/format.h>

namespace rpl::report {
namespace {
using Json = nlohmann::json;

constexpr const char* kTimelineScript = R"js(
function timelineChart(data) {
  const canvas = document.getElementById('timeline');
  const t = data.timeline;
  const n = t && t.start_ns ? t.start_ns.length : 0;
  canvas.dataset.bars = String(n);
  if (!n) return null;

  // Each lane's operations in three groups, drawn as three datasets: the critical path (on top),
  // the other kernels, the other copies. The document lists operations by start.
  const onPath = new Uint8Array(n);
  for (const i of t.critical) onPath[i] = 1;
  const groups = [0, 1, 2].map(() => t.lanes.map(() => []));
  const longest = [0, 1, 2].map(() => t.lanes.map(() => 0));
  let end = 1;
  for (let i = 0; i < n; i++) {
    const g = onPath[i] ? 0 : 1 + t.kind[i];
    groups[g][t.lane[i]].push(i);
    longest[g][t.lane[i]] = Math.max(longest[g][t.lane[i]], t.duration_ns[i]);
    end = Math.max(end, t.start_ns[i] + t.duration_ns[i]);
  }
  const minSpan = Math.min(end, 100);
  const view = { min: 0, max: end };

  // Appends the spans that draw one lane's list between x0 and x1, px nanoseconds to a pixel.
  function spans(out, list, longestNs, label, x0, x1, px) {
    let lo = 0, hi = list.length;
    const from = x0 - longestNs;  // no operation that starts earlier reaches x0
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (t.start_ns[list[m]] < from) lo = m + 1; else hi = m;
    }
    let merged = null;
    for (let k = lo; k < list.length; k++) {
      const i = list[k], s = t.start_ns[i], d = t.duration_ns[i], e = s + d;
      if (s > x1) break;
      if (e < x0) continue;
      const narrow = d < 3 * px;
      if (narrow && merged && s <= merged.x[1] + px) {
        merged.x[1] = Math.max(merged.x[1], e, s + px);
        merged.n++;
        merged.busy += d;
        continue;
      }
      const span = { x: [s, Math.max(e, s + px)], y: label, i, n: 1, busy: d };
      out.push(span);
      merged = narrow ? span : null;
    }
  }

  function unit(span) {
    if (span >= 5e6) return [1e6, 'ms'];
    if (span >= 5e3) return [1e3, 'µs'];
    return [1, 'ns'];
  }
  function duration(ns) {
    const [div, name] = unit(ns);
    return (ns / div).toPrecision(4) + ' ' + name;
  }
  function describe(span) {
    if (span.n > 1) return span.n + ' operations, ' + duration(span.busy) + ' busy (zoom in to see each)';
    const i = span.i;
    return t.names[t.name[i]] + ': ' + duration(t.duration_ns[i]) + ' from ' + duration(t.start_ns[i]) +
           (onPath[i] ? ', on the critical path' : '');
  }

  // Bars wide enough for it carry their kernel's name, cut to fit.
  const names = {
    id: 'rplNames',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx, a = chart.chartArea;
      let written = 0;
      ctx.save();
      ctx.beginPath();
      ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
      ctx.clip();
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillStyle = 'white';
      ctx.textBaseline = 'middle';
      chart.data.datasets.forEach((dataset, d) => {
        if (!chart.isDatasetVisible(d)) return;
        chart.getDatasetMeta(d).data.forEach((bar, k) => {
          const span = dataset.data[k];
          const { x, base, y } = bar.getProps(['x', 'base', 'y'], true);
          const left = Math.max(a.left, Math.min(x, base)), right = Math.min(a.right, Math.max(x, base));
          if (span.n > 1 || right - left < 60) return;
          let text = t.short_names[t.name[span.i]];
          const fit = Math.max(1, Math.floor((right - left - 8) / 5));  // no glyph is narrower than 5 px here
          if (text.length > fit) text = text.slice(0, fit) + '…';
          while (text.length > 1 && ctx.measureText(text).width > right - left - 8) text = text.slice(0, -2) + '…';
          ctx.fillText(text, left + 4, y);
          written++;
        });
      });
      ctx.restore();
      canvas.dataset.names = String(written);
    }
  };

  // Bars wide enough to show one get a white edge, so back-to-back operations stay apart.
  let pxNow = 1;
  const wideBorder = c => c.raw && c.raw.x[1] - c.raw.x[0] > 6 * pxNow ? 1 : 0;
  const chart = new Chart(canvas, {
    type: 'bar', plugins: [names],
    data: { labels: t.lanes, datasets: [
      { label: 'critical path', backgroundColor: 'rgba(214, 39, 40, 0.95)' },
      { label: 'kernels', backgroundColor: 'rgba(31, 119, 180, 0.8)' },
      { label: 'copies', backgroundColor: 'rgba(44, 160, 44, 0.8)' }
    ].map(d => Object.assign(d, { data: [], grouped: false, barPercentage: 0.9, categoryPercentage: 0.8,
                                  borderColor: 'white', borderSkipped: false, borderWidth: wideBorder })) },
    options: {
      indexAxis: 'y', maintainAspectRatio: false,
      interaction: { mode: 'nearest', intersect: true },
      scales: {
        x: { type: 'linear', min: 0, max: end, title: { display: true, text: 'time since the first operation' },
             ticks: { callback: v => { const [div, name] = unit(view.max - view.min); return +(v / div).toPrecision(6) + ' ' + name; } } },
        y: { type: 'category' }
      },
      plugins: { tooltip: { callbacks: { label: c => describe(c.raw) } } }
    }
  });

  function render() {
    pending = false;
    const a = chart.chartArea, px = (view.max - view.min) / Math.max(1, a.right - a.left);
    pxNow = px;
    let drawn = 0;
    chart.data.datasets.forEach((dataset, g) => {
      const out = [];
      groups[g].forEach((list, lane) => spans(out, list, longest[g][lane], t.lanes[lane], view.min, view.max, px));
      dataset.data = out;
      drawn += out.length;
    });
    chart.options.scales.x.min = view.min;
    chart.options.scales.x.max = view.max;
    chart.update('none');
    canvas.dataset.drawn = String(drawn);
    canvas.dataset.width = String(Math.round(a.right - a.left));
    canvas.dataset.view = Math.round(view.min) + ',' + Math.round(view.max);
  }
  let pending = false;
  function schedule() {
    if (!pending) { pending = true; requestAnimationFrame(render); }
  }

  // The view: clamped to the trace, never narrower than minSpan.
  function show(min, max) {
    const span = Math.min(end, Math.max(minSpan, max - min));
    view.min = Math.max(0, Math.min(end - span, min));
    view.max = view.min + span;
    schedule();
  }
  // Zooms by factor keeping the time under clientX (the middle where none) where it is.
  function zoom(factor, clientX) {
    const a = chart.chartArea, left = canvas.getBoundingClientRect().left;
    const f = clientX === undefined ? 0.5 : Math.min(1, Math.max(0, (clientX - left - a.left) / (a.right - a.left)));
    const at = view.min + f * (view.max - view.min);
    const span = Math.min(end, Math.max(minSpan, (view.max - view.min) * factor));
    show(at - f * span, at - f * span + span);
  }
  canvas.addEventListener('wheel', e => { e.preventDefault(); zoom(e.deltaY < 0 ? 0.8 : 1.25, e.clientX); }, { passive: false });
  let drag = null;
  canvas.addEventListener('mousedown', e => { if (e.button === 0) drag = { x: e.clientX, min: view.min, max: view.max }; });
  window.addEventListener('mousemove', e => {
    if (!drag) return;
    const a = chart.chartArea, shift = (e.clientX - drag.x) / (a.right - a.left) * (drag.max - drag.min);
    show(drag.min - shift, drag.max - shift);
  });
  window.addEventListener('mouseup', () => { drag = null; });
  canvas.addEventListener('dblclick', () => show(0, end));
  document.getElementById('timeline-in').addEventListener('click', () => zoom(0.5));
  document.getElementById('timeline-out').addEventListener('click', () => zoom(2));
  document.getElementById('timeline-all').addEventListener('click', () => show(0, end));
  const pathButton = document.getElementById('timeline-path');
  const first = t.critical.reduce((m, i) => Math.min(m, t.start_ns[i]), Infinity);
  const last = t.critical.reduce((m, i) => Math.max(m, t.start_ns[i] + t.duration_ns[i]), 0);
  const showPath = () => { if (t.critical.length) show(first - (last - first) * 0.02, last + (last - first) * 0.02); };
  pathButton.addEventListener('click', showPath);
  pathButton.disabled = !t.critical.length;
  // The view to open with, from the address: #view=critical, or #view=FROM,TO in milliseconds.
  const wanted = /^#view=(.*)$/.exec(location.hash);
  if (wanted && wanted[1] === 'critical') showPath();
  const range = wanted ? wanted[1].split(',').map(Number) : [];
  if (range.length === 2 && range[1] > range[0]) show(range[0] * 1e6, range[1] * 1e6);
  // Otherwise where the GPU works, not the program's start-up; Whole trace shows the rest.
  const w = t.window;
  if (!wanted && w && (w.start_ns > 0 || w.end_ns < end)) {
    const margin = (w.end_ns - w.start_ns) * 0.02;
    show(w.start_ns - margin, w.end_ns + margin);
  }
  render();
  return { chart, canvas, view, end, render };
}

// With #rpl-selftest in the address, drives the timeline through the events a user makes and
// records where the view went (tests open the page headless, where no one can).
function timelineSelfTest(timeline) {
  if (!timeline || location.hash !== '#rpl-selftest') return;
  const { canvas, view, end, render } = timeline;
  const box = canvas.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const mouse = (type, dx) => new MouseEvent(type, { clientX: x + dx, clientY: y, bubbles: true, cancelable: true });
  const steps = [];
  const started = performance.now();
  for (let k = 0; k < 4; k++) {
    canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    render();
  }
  steps.push('zoom=' + ((view.max - view.min) / end).toFixed(4), 'drawn=' + canvas.dataset.drawn);
  const before = view.min;
  canvas.dispatchEvent(mouse('mousedown', 0));
  window.dispatchEvent(mouse('mousemove', 100));
  window.dispatchEvent(mouse('mouseup', 100));
  render();
  const area = timeline.chart.chartArea;
  steps.push('pan_px=' + ((before - view.min) / (view.max - view.min) * (area.right - area.left)).toFixed(1));
  canvas.dispatchEvent(mouse('dblclick', 0));
  render();
  steps.push('reset=' + (view.min === 0 && view.max === end ? 'yes' : 'no'));
  steps.push('ms=' + ((performance.now() - started) / 7).toFixed(1));
  canvas.dataset.selftest = steps.join(' ');
}
)js";

// 100000 as "100,000".
std::string grouped(size_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string timeline_section(const Json& timeline, const std::string& source) {
  std::string html = "<h2>Timeline</h2>\n";
  if (!timeline.is_object() || timeline.value("shown", 0) == 0) {
    return html + "<p id=\"timeline-caption\">No timeline: " +
           (timeline.is_object() ? std::string("the trace has no kernels or copies.")
                                 : std::string("this folder holds no trace (analyze --out keeps none: give "
                                               "<code>rocm-perf report --trace TRACE.db</code>).")) +
           "</p>\n<canvas id=\"timeline\" hidden></canvas>\n";
  }
  const size_t lanes = timeline["lanes"].size(), shown = timeline["shown"], operations = timeline["operations"];
  html += fmt::format("<p id=\"timeline-caption\">{} kernels and copies of {} on {} {}", grouped(operations), escaped(source),
                      lanes, lanes == 1 ? "stream" : "streams");
  if (shown < operations) {
    html += fmt::format(" (the first {} are drawn; rocm-perf export --format perfetto has all)", grouped(shown));
  }
  html += fmt::format("; the critical path, in red, is {:.3f} ms.", timeline.value("critical_path_ns", 0.0) / 1e6);
  const Json& w = timeline.value("window", Json());
  if (w.is_object()) {
    const double from = w["start_ns"].get<double>() / 1e6, to = w["end_ns"].get<double>() / 1e6;
    const double busy = w["busy_fraction"].get<double>() * 100, whole = w["whole_busy_fraction"].get<double>() * 100;
    if (from > 0 || w["end_ns"].get<int64_t>() < w["trace_end_ns"].get<int64_t>()) {
      html += fmt::format(" <span id=\"timeline-window\">The GPU works from {:.3f} to {:.3f} ms, busy {:.1f} % of that window "
                          "({:.1f} % of the whole trace); the view opens there, <em>Whole trace</em> shows the rest.</span>",
                          from, to, busy, whole);
    } else {
      html += fmt::format(" <span id=\"timeline-window\">The GPU is busy {:.1f} % of the trace.</span>", whole);
    }
  }
  html += "</p>\n";
  html += "<div class=\"toolbar\"><button id=\"timeline-in\">Zoom in</button><button id=\"timeline-out\">Zoom out</button>"
          "<button id=\"timeline-path\">Critical path</button><button id=\"timeline-all\">Whole trace</button>"
          "<span class=\"hint\">wheel: zoom, drag: pan, double-click: whole trace</span></div>\n";
  html += fmt::format("<div class=\"timeline\" style=\"height: {}px\"><canvas id=\"timeline\"></canvas></div>\n", 90 + 30 * lanes);
  return html;
}

const char* timeline_script() { return kTimelineScript; }

}  // namespace rpl::report
