#include <rpl/report/json_documents.hpp>

#include <ostream>

#include <cmath>

#include <rpl/analysis/short_names.hpp>
#include <rpl/version.hpp>

namespace rpl::report {

double round6(double value) {
  double r = std::round(value * 1e6) / 1e6;
  return r == 0 ? 0.0 : r;  // no "-0.0"
}

namespace {

template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <typename T>
Json triple(const std::array<T, 3>& v) {
  return Json::array({v[0], v[1], v[2]});
}

}  // namespace

Json document_header() {
  Json j;
  j["schema_version"] = kSchemaVersion;
  j["tool"] = {{"name", kToolName}, {"version", kVersion}};
  return j;
}

Json occupancy_json(const hal::OccupancyResult& o) {
  Json j;
  j["theoretical"] = round6(o.theoretical);
  j["unit"] = o.unit;
  j["wave_size"] = o.wave_size;
  j["waves_per_workgroup"] = o.waves_per_workgroup;
  j["active_workgroups_per_cu"] = o.active_workgroups_per_cu;
  j["active_waves_per_cu"] = o.active_waves_per_cu;
  j["max_waves_per_cu"] = o.max_waves_per_cu;
  if (o.waves_per_simd) j["waves_per_simd"] = round6(*o.waves_per_simd);
  j["limiter"] = o.limiter;
  j["limiters"] = o.limiters;
  Json limits = Json::object();
  for (const auto& l : o.limits) limits[l.name] = optional_json(l.workgroups);
  j["limits"] = std::move(limits);
  return j;
}

Json profile_json(const analysis::ProfileSummary& s) {
  Json j = document_header();
  j["backend"] = s.backend;
  if (s.kernel) {
    const auto& k = *s.kernel;
    j["kernel"] = {{"name", k.name},
                   {"short_name", analysis::short_kernel_name(k.name)},
                   {"mangled_name", k.mangled_name},
                   {"grid", triple(k.grid)},
                   {"block", triple(k.block)},
                   {"dispatches", k.dispatches},
                   {"total_ms", round6(k.total_ms)},
                   {"time_fraction", round6(k.time_fraction)},
                   {"longest_dispatch", {{"id", k.longest_dispatch_id}, {"duration_ms", round6(k.longest_dispatch_ms)}}}};
  } else {
    j["kernel"] = nullptr;
  }
  if (s.ranks) {
    Json ranks = Json::array();
    for (const auto& r : s.ranks->ranks) {
      ranks.push_back({{"rank", r.rank}, {"host", r.host}, {"dispatches_per_run", round6(r.dispatches_per_run)},
                       {"per_run_ms", round6(r.per_run_ms)}});
    }
    j["ranks"] = {{"ranks", ranks}, {"slowest_rank", s.ranks->slowest_rank}, {"mean_ms", round6(s.ranks->mean_ms)},
                  {"imbalance_pct", round6(s.ranks->imbalance_pct)}, {"hosts", s.ranks->hosts}};
  } else {
    j["ranks"] = nullptr;
  }
  if (s.gpu) {
    const auto& g = *s.gpu;
    j["gpu"] = {{"vendor", g.vendor},
                {"architecture", g.architecture},
                {"product", g.product},
                {"product_recorded", g.product_recorded},
                {"compute_units", optional_json(g.compute_units)},
                {"wave_size", optional_json(g.wave_size)},
                {"max_clock_mhz", optional_json(g.max_clock_mhz)}};
  } else {
    j["gpu"] = nullptr;
  }
  j["runtime_ms"] = round6(s.runtime_ms);
  const auto& st = s.stability;
  j["stability"] = {{"runs", st.runs},
                    {"processes", st.processes},
                    {"samples", st.samples},
                    {"mean_ms", round6(st.mean_ms)},
                    {"median_ms", round6(st.median_ms)},
                    {"stddev_ms", round6(st.stddev_ms)},
                    {"min_ms", round6(st.min_ms)},
                    {"max_ms", round6(st.max_ms)},
                    {"cv", round6(st.cv)},
                    {"classification", st.classification}};
  j["resources"] = s.resources ? resources_json(*s.resources) : Json(nullptr);
  j["occupancy"] = s.occupancy ? occupancy_json(*s.occupancy) : Json(nullptr);
  j["roofline"] = nullptr;  // needs a counter pass; a later capability
  j["warnings"] = s.warnings;
  return j;
}

Json resources_json(const analysis::ResourceSummary& r) {
  // null where the trace told the LDS as one total: a 0 there would claim there was no static LDS.
  const auto part = [&](int64_t bytes) { return r.lds_split_known ? Json(bytes) : Json(nullptr); };
  // null where the trace records no register counts: a 0 there would read as a kernel without any.
  const auto registers = [&](int64_t count) { return r.registers_known ? Json(count) : Json(nullptr); };
  return {{"vgpr_per_thread", registers(r.vgpr_per_thread)}, {"agpr_per_thread", registers(r.agpr_per_thread)},
          {"sgpr_per_wave", registers(r.sgpr_per_wave)},     {"lds_bytes", r.lds_bytes},
          {"static_lds_bytes", part(r.static_lds_bytes)}, {"dynamic_lds_bytes", part(r.dynamic_lds_bytes)},
          {"scratch_bytes", r.scratch_bytes}};
}

namespace {

Json inspected_kernel_json(const analysis::InspectedKernel& k) {
  Json kj;
  kj["name"] = k.name;
  kj["mangled_name"] = k.mangled_name;
  kj["arch"] = k.arch;
  kj["wave_size"] = k.wave_size;
  kj["max_workgroup_size"] = k.max_flat_workgroup_size;
  kj["resources"] = resources_json(k.resources);
  kj["spills"] = {{"vgpr", k.vgpr_spills}, {"sgpr", k.sgpr_spills}};
  kj["constant_bytes"] = optional_json(k.constant_bytes);
  kj["occupancy"] = k.occupancy ? occupancy_json(*k.occupancy) : Json(nullptr);
  return kj;
}

Json inspect_header(const analysis::InspectReport& report) {
  Json j = document_header();
  j["file"] = report.file;
  j["block"] = report.block;
  j["kernels"] = Json::array();
  j["warnings"] = report.warnings;
  return j;
}

}  // namespace

Json inspect_json(const analysis::InspectReport& report) {
  Json j = inspect_header(report);
  for (const auto& k : report.kernels) j["kernels"].push_back(inspected_kernel_json(k));
  return j;
}

void write_inspect_json(std::ostream& out, const analysis::InspectReport& report) {
  // The document with an empty kernel list, split where the list goes; raw newlines cannot occur
  // inside JSON strings, so the marker is the key itself.
  const std::string text = inspect_header(report).dump(2);
  const std::string marker = "\n  \"kernels\": []";
  const size_t at = text.find(marker);
  out << text.substr(0, at) << "\n  \"kernels\": [";
  bool first = true;
  for (const auto& k : report.kernels) {
    // One element at a time, indented as dump(2) nests it: 4 spaces deeper than on its own.
    const std::string element = inspected_kernel_json(k).dump(2);
    std::string text = first ? "\n    " : ",\n    ";
    text.reserve(text.size() + element.size() + element.size() / 8);
    for (char c : element) {
      text += c;
      if (c == '\n') text += "    ";
    }
    out.write(text.data(), static_cast<std::streamsize>(text.size()));  // one write: a character at a time is slow
    first = false;
  }
  out << (report.kernels.empty() ? "]" : "\n  ]") << text.substr(at + marker.size()) << "\n";
}

std::string dump(const Json& document) { return document.dump(2) + "\n"; }

}  // namespace rpl::report
