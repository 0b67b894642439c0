#pragma once
// Proposals that need no model: attributes that tell the compiler what the captured dispatch shows.
// Each variant is the original file with only the kernel's declaration changed, and goes through
// the guards, the build, the oracle and the timing like every candidate.
//  - Launch bounds for the captured block size: the compiler may then give each thread more
//    registers (one block of that size must fit) or fewer (several blocks must fit per SM / CU).
//  - __restrict__ on the pointer parameters, where the oracle shows that no two of them point into
//    the same allocation: the compiler may then keep loaded values across stores. A qualifier on
//    the parameter itself leaves the function's type and mangled name as they were.
#include <string>
#include <vector>

#include <rpl/isolate/snapshot.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/source_edits.hpp>

namespace rpl::optimize {

struct RuleProposals {
  std::vector<SourceVariant> variants;
  std::vector<std::string> refused;  // "__restrict__: in and out point into the same allocation 0x7f... (oracle 1)"
};

/// For a block of block_threads threads on architecture ("sm_90", "gfx942"). NVIDIA:
/// __launch_bounds__(B, M) with at least M = 1, 2, 4 blocks per SM. AMD:
/// __attribute__((amdgpu_flat_work_group_size(1, B))), alone and with amdgpu_waves_per_eu(W), W
/// the waves per SIMD that 2 and 4 workgroups per CU take. Refused when the kernel has launch
/// bounds already, or the architecture is unknown.
RuleProposals launch_bounds_variants(const KernelSource& source, const KernelDefinition& kernel, const std::string& architecture,
                                     unsigned block_threads);

/// Where each pointer parameter of kernel points in snapshot: "" when each points into a captured
/// allocation of its own (or is null); else why they may alias.
std::string pointer_aliasing(const KernelDefinition& kernel, const isolate::Snapshot& snapshot);

/// __restrict__ before the name of each named pointer parameter that lacks it, when every oracle
/// shows them apart (pointer_aliasing) and there are at least two pointer parameters.
RuleProposals restrict_variant(const KernelSource& source, const KernelDefinition& kernel,
                               const std::vector<isolate::Snapshot>& oracles);

}  // namespace rpl::optimize
