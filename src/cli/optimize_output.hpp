#pragma once
// What `rocm-perf optimize` writes: optimize.json (schemas/optimize.schema.json) and its summary.
#include <filesystem>
#include <string>

#include <rpl/report/json_documents.hpp>

#include "optimize_session.hpp"

namespace rpl::cli {

report::Json optimize_json(const OptimizeOutcome& outcome, const std::filesystem::path& source);

/// The winner with its speedups, and what was rejected and why, counted by guard.
std::string optimize_text(const OptimizeOutcome& outcome, const std::filesystem::path& source, const std::filesystem::path& out);

}  // namespace rpl::cli
