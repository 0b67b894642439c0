#include <rpl/report/text.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <rpl/core/text.hpp>

namespace rpl::report {
namespace {

std::string limit_value(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace

std::string resources_text(const analysis::ResourceSummary& r, Vendor vendor) {
  const std::string split = r.lds_split_known ? fmt::format("static {} + dynamic {}", r.static_lds_bytes, r.dynamic_lds_bytes)
                                              : "static and dynamic not told apart by the trace";
  if (vendor == Vendor::nvidia) {
    const std::string registers = r.registers_known ? fmt::format("Registers {} per thread", r.vgpr_per_thread) : "Registers not recorded";
    return fmt::format("{}, shared memory {} B ({}), local {} B", registers, r.lds_bytes, split, r.scratch_bytes);
  }
  const std::string registers = r.registers_known
                                    ? fmt::format("VGPR {}, AGPR {}, SGPR {}", r.vgpr_per_thread, r.agpr_per_thread, r.sgpr_per_wave)
                                    : "VGPR, AGPR and SGPR not recorded";
  return fmt::format("{}, LDS {} B ({}), scratch {} B", registers, r.lds_bytes, split, r.scratch_bytes);
}

std::string occupancy_text(const hal::OccupancyResult& o) {
  const bool nvidia = o.unit == "SM";
  const char* wave = nvidia ? "warps" : "waves";
  const char* group = nvidia ? "blocks" : "workgroups";
  std::string out = fmt::format("{:.1f} % ({} of {} {} per {}; {} per {}), limited by {}", o.theoretical * 100,
                                o.active_waves_per_cu, o.max_waves_per_cu, wave, o.unit,
                                counted(static_cast<size_t>(o.active_workgroups_per_cu), nvidia ? "block" : "workgroup"),
                                o.unit, o.limiter);
  if (o.waves_per_simd) out += fmt::format("; {:g} waves per SIMD", *o.waves_per_simd);
  std::string limits;
  for (const auto& l : o.limits) limits += fmt::format("{}{} {}", limits.empty() ? "" : ", ", l.name, limit_value(l.workgroups));
  out += fmt::format("\n{:12}limits ({} per {}): {}", "", group, o.unit, limits);
  return out;
}

std::string inspect_text(const analysis::InspectReport& report) {
  std::string out = fmt::format("{}: {}; occupancy for block {}\n", report.file, counted(report.kernels.size(), "kernel"),
                                report.block);
  for (const auto& k : report.kernels) {
    out += fmt::format("\n{}  [{}, wave{}]\n", k.name, k.arch, k.wave_size);
    out += fmt::format("{:12}{}\n", "Resources",
                       resources_text(k.resources, k.arch.rfind("sm_", 0) == 0 ? Vendor::nvidia : Vendor::amd));
    if (k.vgpr_spills || k.sgpr_spills) out += fmt::format("{:12}{} VGPR and {} SGPR spills\n", "Spills", k.vgpr_spills, k.sgpr_spills);
    if (k.constant_bytes) out += fmt::format("{:12}{} B\n", "Constant", *k.constant_bytes);
    out += fmt::format("{:12}{}\n", "Occupancy", k.occupancy ? occupancy_text(*k.occupancy) : std::string("not computed"));
  }
  return out;
}

std::string profile_text(const analysis::ProfileSummary& s, analysis::NameStyle names) {
  std::string out;
  auto line = [&out](std::string_view label, const std::string& text) { out += fmt::format("{:<12}{}\n", label, text); };
  if (s.kernel) {
    const auto& k = *s.kernel;
    line("Kernel", analysis::kernel_label(k.name, names));
    line("", fmt::format("{}, {:.3f} ms in all, {:.1f} % of kernel time; grid [{}, {}, {}], block [{}, {}, {}]",
                         counted(k.dispatches, "dispatch", "dispatches"), k.total_ms, k.time_fraction * 100, k.grid[0], k.grid[1], k.grid[2], k.block[0],
                         k.block[1], k.block[2]));
  }
  if (s.gpu) {
    const auto& g = *s.gpu;
    std::string gpu = g.product.empty()       ? g.architecture
                      : g.product_recorded ? fmt::format("{} ({})", g.product, g.architecture)
                                           : fmt::format("{}, product not recorded (taken as {})", g.architecture, g.product);
    if (g.compute_units) gpu += fmt::format(", {} {}", *g.compute_units, g.vendor == "NVIDIA" ? "SMs" : "CUs");
    if (g.wave_size) gpu += fmt::format(", {} {}", g.vendor == "NVIDIA" ? "warp" : "wave", *g.wave_size);
    if (g.max_clock_mhz) gpu += fmt::format(", {:g} MHz", *g.max_clock_mhz);
    line("GPU", gpu.empty() ? "not known (the trace does not say; see the warnings)" : gpu);
  }
  const auto& st = s.stability;
  line("Runtime", fmt::format("{:.4f} ms {}", s.runtime_ms, s.kernel ? "per dispatch (mean)" : "per run (mean, whole process)"));
  // "in 1 run" or, where runs started several GPU processes, "in 1 run (2 processes)".
  std::string runs = counted(static_cast<size_t>(st.runs), "run");
  if (st.processes > st.runs) runs += fmt::format(" ({})", counted(static_cast<size_t>(st.processes), "process", "processes"));
  if (st.classification == "single_sample") {
    line("Stability", fmt::format("a single sample in {} ({:.4f} ms): no spread to judge", runs, st.median_ms));
  } else {
    line("Stability", fmt::format("{}: cv {:.4f} over {} in {} (median {:.4f}, min {:.4f}, max {:.4f} ms)", st.classification,
                                  st.cv, counted(st.samples, "sample"), runs, st.median_ms, st.min_ms, st.max_ms));
  }
  const Vendor vendor = s.gpu && s.gpu->vendor == "NVIDIA" ? Vendor::nvidia : Vendor::amd;
  line("Resources", s.resources ? resources_text(*s.resources, vendor) : "unknown (no trace)");
  line("Occupancy", s.occupancy ? occupancy_text(*s.occupancy) : "unknown");
  if (s.ranks) {
    const auto& r = *s.ranks;
    const auto [fastest, slowest] = std::minmax_element(r.ranks.begin(), r.ranks.end(),
                                                        [](const auto& a, const auto& b) { return a.per_run_ms < b.per_run_ms; });
    line("Ranks", fmt::format("{} ranks on {}: the kernel {:.3f} to {:.3f} ms a run; slowest rank {} ({:.1f} % over the mean)",
                              r.ranks.size(), counted(r.hosts, "host"), fastest->per_run_ms, slowest->per_run_ms, r.slowest_rank,
                              r.imbalance_pct));
  }
  return out;
}

}  // namespace rpl::report
