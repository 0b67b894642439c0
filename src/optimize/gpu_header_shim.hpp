#pragma once
// Stand-ins for the GPU toolkits' headers (cuda_runtime.h, hip/hip_runtime.h, ...) with just what
// kernels are written with, so that a kernel parses without the toolkit installed. The kernels'
// structure is all the optimizer reads from the parse; the real compiler builds every candidate.
#include <filesystem>

namespace rpl::optimize {

/// A folder holding the stand-in headers, written once per process and removed at its exit.
const std::filesystem::path& gpu_header_shim_dir();

}  // namespace rpl::optimize
