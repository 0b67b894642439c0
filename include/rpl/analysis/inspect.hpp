#pragma once
// Static resources and occupancy of every kernel in a binary, without a GPU.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <rpl/analysis/profile_summary.hpp>

namespace rpl::analysis {

struct InspectedKernel {
  std::string name;          // demangled
  std::string mangled_name;
  std::string arch;
  int64_t wave_size = 0;
  int64_t max_flat_workgroup_size = 0;
  ResourceSummary resources;  // static LDS only
  int64_t vgpr_spills = 0;
  int64_t sgpr_spills = 0;
  std::optional<int64_t> constant_bytes;  // NVIDIA: constant bank 0 (parameters and driver constants)
  std::optional<hal::OccupancyResult> occupancy;
};

struct InspectReport {
  std::string file;
  int block = 0;
  std::vector<InspectedKernel> kernels;  // sorted by arch, then name
  std::vector<std::string> warnings;
};

/// Error(bad_input) for an unreadable file, one without GPU code, or an --arch it has no code for.
InspectReport inspect_binary(const std::filesystem::path& file, const std::optional<std::string>& arch, int block);

}  // namespace rpl::analysis
