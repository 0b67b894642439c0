#pragma once
// What `rocm-perf optimize` prints: the summary of its result (optimize.json is the library's).
#include <filesystem>
#include <string>

#include <rpl/workflow/optimize.hpp>

namespace rpl::cli {

/// The winner with its speedups, and what was rejected and why, counted by guard.
std::string optimize_text(const workflow::OptimizeResult& outcome, const std::filesystem::path& source, const std::filesystem::path& out);

}  // namespace rpl::cli
