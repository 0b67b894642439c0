#pragma once
// Variants of one kernel's source, each the original file with that kernel's definition changed
// and every other byte as it was: unrolled loops, and a new definition spliced in (from a model's
// answer or a candidate file).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rpl/optimize/kernel_source.hpp>

namespace rpl::optimize {

struct SourceVariant {
  std::string origin;  // "unroll loop 2 (line 18) by 4"
  std::string text;    // the whole file
  unsigned loop_line = 0;  // an unrolled loop's line, and the factor
  int factor = 0;
};

struct RefusedLoop {
  unsigned line = 0;
  std::string reason;
};

struct UnrollProposals {
  std::vector<SourceVariant> variants;
  std::vector<RefusedLoop> refused;
};

/// "#pragma unroll F" before each for loop of kernel that is safe to unroll (an existing unroll
/// pragma is replaced), one variant per loop and factor; the unsafe loops with their reasons.
UnrollProposals unroll_variants(const KernelSource& source, const KernelDefinition& kernel, const std::vector<int>& factors);

/// source's text with kernel's definition replaced by new_definition.
std::string splice_definition(const KernelSource& source, const KernelDefinition& kernel, std::string_view new_definition);

/// The code of a model's answer: its one fenced code block (``` ... ```), or of several the one
/// that defines kernel_name as a __global__ function. Empty, with why set, when there is none or
/// it is ambiguous.
std::optional<std::string> fenced_code_block(std::string_view answer, const std::string& kernel_name, std::string& why);

/// A unified diff (diff -u, one hunk with three lines of context) that turns before into after,
/// with "--- a/label" and "+++ b/label" headers; empty when they are equal. A variant changes
/// one definition, so one hunk from the first differing line to the last is the whole change.
std::string unified_diff(std::string_view before, std::string_view after, const std::string& label);

}  // namespace rpl::optimize
