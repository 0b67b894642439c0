#pragma once
// analysis.json (schemas/analysis.schema.json), the stall line and the paragraph that end the human
// summary.
#include <string>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::report {

Json analysis_json(const analysis::Bottleneck& bottleneck);
std::string bottleneck_text(const analysis::Bottleneck& bottleneck);
/// "Stalls      memory_dependency 62 %, ...; issue slots 35 % busy, IPC 1.20, branch efficiency 100 %".
std::string stalls_text(const analysis::StallAnalysis& stalls);

}  // namespace rpl::report
