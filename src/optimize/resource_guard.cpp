#include <rpl/optimize/resource_guard.hpp>

#include <fmt/format.h>

namespace rpl::optimize {

std::vector<ResourceFinding> compare_resources(const analysis::InspectedKernel& original, const analysis::InspectedKernel& candidate) {
  std::vector<ResourceFinding> found;
  const auto spills = [](const analysis::InspectedKernel& k) { return k.resources.scratch_bytes + k.vgpr_spills + k.sgpr_spills; };
  if (spills(candidate) > 0 && spills(original) == 0) {
    found.push_back({"spills", fmt::format("it spills ({} bytes of local memory per thread; the original has none)",
                                           candidate.resources.scratch_bytes)});
  }
  const auto& a = original.occupancy;
  const auto& b = candidate.occupancy;
  if (a && b && b->theoretical < a->theoretical - 1e-9) {
    found.push_back({"occupancy", fmt::format("theoretical occupancy {:.0f}% < the original's {:.0f}% ({} registers per thread, "
                                              "limited by {})",
                                              b->theoretical * 100, a->theoretical * 100, candidate.resources.vgpr_per_thread, b->limiter)});
  }
  return found;
}

bool resources_prefilter(const std::string& kind) { return kind == "unroll"; }

}  // namespace rpl::optimize
