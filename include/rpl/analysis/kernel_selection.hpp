#pragma once
// Which kernel dominates a trace (DESIGN.md "Kernel selection").
#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

/// All dispatches of one kernel, across runs: symbols are grouped by mangled name.
struct KernelGroup {
  std::string mangled_name;
  std::string display_name;
  std::vector<int32_t> dispatches;  // indices into Trace::dispatches, in trace order
  int64_t total_ns = 0;
  int32_t longest_dispatch = -1;    // index into Trace::dispatches
  int64_t longest_ns = 0;
  bool runtime_helper = false;
};

struct KernelSelection {
  KernelGroup kernel;
  int64_t all_kernels_ns = 0;   // GPU time of every dispatch in the trace
  double time_fraction = 0;     // kernel.total_ns / all_kernels_ns
  std::vector<std::string> warnings;
};

/// Runtime helpers are not the user's kernels: __amd_rocclr_*, names starting with hip or hsa_.
bool is_runtime_helper(std::string_view name);

/// A regular expression (ECMAScript) that matches exactly name: every special character escaped.
std::string exact_name_regex(std::string_view name);

/// --kernel REGEX compiled (ECMAScript). Error(bad_input) naming it when it is no regular expression.
std::regex compile_kernel_regex(const std::string& regex);

/// Whether a --kernel regex finds the group's demangled or mangled name.
bool kernel_matches(const KernelGroup& group, const std::regex& regex);

/// Groups dispatches by kernel, largest total time first (ties by name, for determinism).
std::vector<KernelGroup> group_by_kernel(const trace::Trace& trace);

/// The non-helper kernel with the largest total GPU time, or the one --kernel REGEX picks.
/// Error(bad_input) when the trace has no dispatches, or the regex is invalid or matches nothing.
KernelSelection select_dominant_kernel(const trace::Trace& trace, const std::optional<std::string>& kernel_regex);

}  // namespace rpl::analysis
