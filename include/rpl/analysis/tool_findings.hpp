#pragma once
// What the tool that wrote the trace concluded of a kernel (Nsight Compute's guided-analysis rules),
// gathered over the kernel's launches, beside rocm-perf's own bottleneck rules.
#include <optional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

struct KernelFinding {
  std::string section, rule, type, text;  // text: of the launch where ncu estimated the most
  std::string speedup_kind;               // "local", "global"; empty without an estimate
  std::optional<double> speedup_percent;  // the largest over the launches
  size_t launches = 0;                    // launches it was reported of
};

/// The kernel's (by name) findings: one per rule of a section and its place among that rule's rows
/// of a launch (ncu reports a rule several times, once per unit), the largest estimated speedup
/// first, then those without an estimate, each group in the tool's order.
std::vector<KernelFinding> kernel_findings(const trace::Trace& trace, const std::string& kernel);

}  // namespace rpl::analysis
