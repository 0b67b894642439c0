#include <rpl/optimize/rule_proposals.hpp>

#include <cstring>
#include <map>

#include <fmt/format.h>

#include <rpl/core/files.hpp>
#include <rpl/hal/arch.hpp>
#include <rpl/optimize/oracle.hpp>

namespace rpl::optimize {
namespace {

std::string with_attribute(const KernelSource& source, const KernelDefinition& kernel, const std::string& attribute) {
  std::string text = source.text;
  text.insert(kernel.name_offset, attribute + " ");
  return text;
}

// The value of argument i of the launch, as an address; none when the launch does not list it or
// it is not pointer-sized.
std::optional<uint64_t> pointer_argument(const std::vector<isolate::KernelArgument>& arguments, const std::string& kernarg, size_t i) {
  if (i >= arguments.size()) return std::nullopt;
  const auto& a = arguments[i];
  if (a.size != sizeof(uint64_t) || a.offset + a.size > kernarg.size()) return std::nullopt;
  uint64_t v = 0;
  std::memcpy(&v, kernarg.data() + a.offset, sizeof v);
  return v;
}

}  // namespace

RuleProposals launch_bounds_variants(const KernelSource& source, const KernelDefinition& kernel, const std::string& architecture,
                                     unsigned block_threads) {
  RuleProposals out;
  if (!kernel.launch_bounds.empty()) {
    out.refused.push_back(fmt::format("launch bounds: the kernel has them already ({})", kernel.launch_bounds));
    return out;
  }
  const unsigned b = block_threads;
  if (const auto* nvidia = hal::find_nvidia_arch(architecture)) {
    for (unsigned blocks : {1u, 2u, 4u}) {
      if (blocks * b > static_cast<unsigned>(nvidia->max_threads_per_sm)) continue;
      SourceVariant v;
      v.origin = fmt::format("__launch_bounds__({}, {})", b, blocks);
      v.text = with_attribute(source, kernel, v.origin);
      out.variants.push_back(std::move(v));
    }
  } else if (const auto* amd = hal::find_amd_arch(architecture)) {
    // Workgroups per CU -> waves per SIMD (the attribute's unit): 2 workgroups of 4 waves on 4 SIMDs is 2.
    const std::string flat = fmt::format("amdgpu_flat_work_group_size(1, {})", b);
    const unsigned waves = (b + static_cast<unsigned>(amd->default_wave_size) - 1) / static_cast<unsigned>(amd->default_wave_size);
    std::vector<std::string> attributes = {flat};
    unsigned last = 1;
    for (unsigned groups : {2u, 4u}) {
      const unsigned per_simd = (groups * waves + static_cast<unsigned>(amd->simds_per_unit) - 1) / static_cast<unsigned>(amd->simds_per_unit);
      if (per_simd <= last || per_simd > static_cast<unsigned>(amd->max_waves_per_simd)) continue;
      attributes.push_back(fmt::format("{}, amdgpu_waves_per_eu({})", flat, per_simd));
      last = per_simd;
    }
    for (const auto& a : attributes) {
      SourceVariant v;
      v.origin = fmt::format("__attribute__(({}))", a);
      v.text = with_attribute(source, kernel, v.origin);
      out.variants.push_back(std::move(v));
    }
  } else {
    out.refused.push_back(fmt::format("launch bounds: unknown architecture '{}'", architecture));
  }
  return out;
}

std::string pointer_aliasing(const KernelDefinition& kernel, const isolate::Snapshot& snapshot) {
  const std::string kernarg = read_file(snapshot.dir / "kernarg.bin");
  const auto arguments = kernel_arguments(snapshot);
  std::map<uint64_t, std::string> owner;  // region base -> the parameter pointing into it
  for (size_t i = 0; i < kernel.parameters.size(); ++i) {
    const auto& p = kernel.parameters[i];
    if (!p.pointer) continue;
    const std::string name = p.name.empty() ? fmt::format("parameter {}", i + 1) : p.name;
    const auto address = pointer_argument(arguments, kernarg, i);
    if (!address) return fmt::format("the launch does not list {} as a pointer-sized argument", name);
    if (*address == 0) continue;
    const isolate::MemoryRegion* region = nullptr;
    for (const auto& r : snapshot.memory.regions) {
      if (*address >= r.base && *address - r.base < r.size) region = &r;
    }
    if (!region) return fmt::format("{} points to {}, in no captured allocation", name, isolate::hex_address(*address));
    const auto [it, first] = owner.emplace(region->base, name);
    if (!first) return fmt::format("{} and {} point into the same allocation {}", it->second, name, isolate::hex_address(region->base));
  }
  return "";
}

RuleProposals restrict_variant(const KernelSource& source, const KernelDefinition& kernel, const std::vector<isolate::Snapshot>& oracles) {
  RuleProposals out;
  std::vector<const KernelParameter*> pointers, qualify;
  for (const auto& p : kernel.parameters) {
    if (!p.pointer) continue;
    pointers.push_back(&p);
    if (!p.restrict_qualified && p.name_offset > 0) qualify.push_back(&p);
  }
  if (pointers.size() < 2) {
    out.refused.push_back("__restrict__: fewer than two pointer parameters, nothing to tell apart");
    return out;
  }
  if (qualify.empty()) {
    out.refused.push_back("__restrict__: every named pointer parameter has it already");
    return out;
  }
  for (size_t i = 0; i < oracles.size(); ++i) {
    if (const auto why = pointer_aliasing(kernel, oracles[i]); !why.empty()) {
      out.refused.push_back(fmt::format("__restrict__: {} (oracle {})", why, i + 1));
      return out;
    }
  }
  SourceVariant v;
  std::string names;
  v.text = source.text;
  for (auto it = qualify.rbegin(); it != qualify.rend(); ++it) v.text.insert((*it)->name_offset, "__restrict__ ");  // from the end: offsets stay valid
  for (const auto* p : qualify) names += (names.empty() ? "" : ", ") + p->name;
  v.origin = "__restrict__ on " + names;
  out.variants.push_back(std::move(v));
  return out;
}

}  // namespace rpl::optimize
