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

struct InspectOptions {
  std::optional<std::string> arch;          // "sm_90" (and its a/f variants), "sm_90a" (that alone), "gfx90a"
  std::optional<std::string> kernel_regex;  // on mangled or demangled names, before anything is decoded
  int block = 256;
};

/// Error(bad_input) for an unreadable file, one without GPU code, or an --arch or --kernel that
/// selects nothing in it.
InspectReport inspect_binary(const std::filesystem::path& file, const InspectOptions& options);

}  // namespace rpl::analysis
