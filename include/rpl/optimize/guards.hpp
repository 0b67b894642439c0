#pragma once
// The guards a candidate passes before anything is built or run (issue: the guarded optimizer):
// the kernel's signature is the original's, and nothing else in the file changed but added
// __device__ helpers. Each refusal names the guard and the reason, for optimize.json.
#include <set>
#include <string>

#include <rpl/optimize/kernel_source.hpp>

namespace rpl::optimize {

struct GuardVerdict {
  std::string guard;   // "signature", "unchanged_rest", "ignores_parameter"; empty when every guard passed
  std::string reason;  // what differs
  bool passed() const { return guard.empty(); }
};

/// candidate: the parse of original's file with kernel's definition replaced (splice_definition).
GuardVerdict check_source_guards(const KernelSource& original, const KernelDefinition& kernel, const KernelSource& candidate);

/// The candidate's definition of kernel still reads every parameter that the original reads (by
/// position: a parameter may be renamed), but for those named in allowed (by the original's names):
/// one it no longer reads was most likely replaced by the value captured in the oracle, which makes
/// the kernel right for that one input shape. candidate: as for check_source_guards, which passed.
GuardVerdict check_parameters_read(const KernelSource& original, const KernelDefinition& kernel, const KernelSource& candidate,
                                   const std::set<std::string>& allowed);

}  // namespace rpl::optimize
