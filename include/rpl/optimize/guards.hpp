#pragma once
// The guards a candidate passes before anything is built or run (issue: the guarded optimizer):
// the kernel's signature is the original's, and nothing else in the file changed but added
// __device__ helpers. Each refusal names the guard and the reason, for optimize.json.
#include <string>

#include <rpl/optimize/kernel_source.hpp>

namespace rpl::optimize {

struct GuardVerdict {
  std::string guard;   // "signature", "unchanged_rest"; empty when every guard passed
  std::string reason;  // what differs
  bool passed() const { return guard.empty(); }
};

/// candidate: the parse of original's file with kernel's definition replaced (splice_definition).
GuardVerdict check_source_guards(const KernelSource& original, const KernelDefinition& kernel, const KernelSource& candidate);

}  // namespace rpl::optimize
