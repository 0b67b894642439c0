#include <rpl/report/roofline_json.hpp>

#include <fmt/format.h>

#include <rpl/analysis/short_names.hpp>
#include <rpl/core/units.hpp>

namespace rpl::report {
namespace {

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
Json optional_rounded(const std::optional<double>& v) { return v ? Json(round6(*v)) : Json(nullptr); }
Json optional_text(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }

template <typename Names, typename Values>
Json by_name(const Names& names, const Values& values) {
  Json j = Json::object();
  for (size_t i = 0; i < names.size(); ++i) j[std::string(names[i])] = optional_number(values[i]);
  return j;
}

}  // namespace

Json speed_of_light_json(const analysis::SpeedOfLight& s) {
  return {{"measured_dispatches", s.measured_dispatches},
          {"sm_percent", optional_rounded(s.sm_percent)},
          {"memory_percent", optional_rounded(s.memory_percent)},
          {"dram_percent", optional_rounded(s.dram_percent)}};
}

Json kernel_roofline_json(const analysis::KernelRoofline& k) {
  Json j;
  j["name"] = k.name;
  j["short_name"] = analysis::short_kernel_name(k.name);
  j["dispatches"] = k.dispatches;
  j["measured_dispatches"] = k.measured_dispatches;
  j["time_ms"] = round6(k.time_ns / 1e6);
  j["flops"] = by_name(hal::kComputeKindNames, k.flops);
  j["total_flops"] = optional_number(k.total_flops);
  j["bytes"] = by_name(hal::kMemoryLevelNames, k.bytes);
  j["operational_intensity"] = optional_rounded(k.operational_intensity);
  j["achieved_flops_per_s"] = optional_number(k.achieved_flops_per_s);
  j["achieved_bytes_per_s"] = by_name(hal::kMemoryLevelNames, k.achieved_bytes_per_s);
  j["clock_mhz"] = optional_rounded(k.clock_mhz);
  j["compute_roof_flops_per_s"] = optional_number(k.compute_roof);
  j["binding_ceiling"] = optional_text(k.binding_ceiling);
  j["roofline_position"] = optional_text(k.position);
  j["percent_of_roof"] = optional_rounded(k.percent_of_roof);
  j["missing"] = k.missing;
  j["speed_of_light"] = k.speed_of_light ? speed_of_light_json(*k.speed_of_light) : Json(nullptr);
  return j;
}

Json roofline_json(const analysis::RooflineResult& r) {
  Json j = document_header();
  j["device"] = {{"architecture", r.device.architecture},
                 {"product", r.device.product},
                 {"compute_units", r.device.compute_units ? Json(*r.device.compute_units) : Json(nullptr)},
                 {"clock_mhz", optional_number(r.device.clock_mhz)}};
  j["ceilings"] = {{"source", r.ceilings.source},
                   {"clock_mhz", optional_number(r.ceilings.clock_mhz)},
                   {"flops_per_s", by_name(hal::kComputeKindNames, r.ceilings.flops_per_s)},
                   {"bytes_per_s", by_name(hal::kMemoryLevelNames, r.ceilings.bytes_per_s)},
                   {"notes", r.ceilings.notes}};
  Json kernels = Json::array();
  for (const auto& k : r.kernels) kernels.push_back(kernel_roofline_json(k));
  j["kernels"] = std::move(kernels);
  j["warnings"] = r.warnings;
  return j;
}

std::string roofline_text(const analysis::KernelRoofline& k) {
  if (k.measured_dispatches == 0) return "";
  std::string text = "Roofline    ";
  if (!k.position) {
    text += "not placed: " + (k.missing.empty() ? std::string("figures missing") : k.missing.front());
    return text + "\n";
  }
  const bool memory = *k.position == "memory_bound";
  text += fmt::format("{}, {:.1f} % of the {} roof; {}, ", memory ? "memory-bound" : "compute-bound", *k.percent_of_roof,
                      *k.binding_ceiling, si_units(k.achieved_flops_per_s.value_or(0), "FLOP/s"));
  const auto& dram = k.achieved_bytes_per_s[static_cast<size_t>(hal::MemoryLevel::dram)];
  text += fmt::format("{} DRAM, {:.3g} FLOP/byte", si_units(dram.value_or(0), "B/s"), k.operational_intensity.value_or(0));
  if (k.clock_mhz) text += fmt::format("; measured at {:.0f} MHz", *k.clock_mhz);
  return text + "\n";
}

}  // namespace rpl::report
