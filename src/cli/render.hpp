#pragma once
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/report/json_documents.hpp>

#include "commands.hpp"

namespace rpl::cli {

/// --json: the document alone; --quiet: runtime_ms alone; else the human summary, closing_text
/// (what the analyses beyond the summary found) and warnings.
int render_profile(const analysis::ProfileSummary& summary, const report::Json& document, const OutputOptions& output,
                   const std::string& closing_text = "");

}  // namespace rpl::cli
