#pragma once
// What a candidate's code object predicts of its speed against the original's: spills where the
// original had none, a lower theoretical occupancy. A prediction, not a measurement: it rejects an
// unrolled loop (a blind proposal, whose timing it saves), and is an advisory on every other
// candidate, which the measured time judges.
#include <string>
#include <vector>

#include <rpl/analysis/inspect.hpp>

namespace rpl::optimize {

struct ResourceFinding {
  std::string guard;   // "spills", "occupancy"
  std::string reason;  // with the figures
};

std::vector<ResourceFinding> compare_resources(const analysis::InspectedKernel& original, const analysis::InspectedKernel& candidate);

/// Whether a candidate of this kind (its origin: unroll, launch_bounds, restrict, file, llm) is
/// rejected by what compare_resources finds before it is measured.
bool resources_prefilter(const std::string& kind);

}  // namespace rpl::optimize
