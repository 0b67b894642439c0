#pragma once
// A decoded AMD thread trace (rocprofv3 --att, its ui_output_agent_*_dispatch_* folder) or a
// PC-sampling folder in the same viewer format: code.json (per instruction: executions, latency,
// stall and idle cycles, or PC samples) and filenames.json (the traced waves). reference/rocm.md §6.
#include <filesystem>

#include <rpl/trace/thread_trace.hpp>

namespace rpl::backends {

/// Error(bad_input) naming the file for a folder without code.json, or files that are not the format.
trace::ThreadTrace read_att_output(const std::filesystem::path& dir);

}  // namespace rpl::backends
