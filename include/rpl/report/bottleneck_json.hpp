#pragma once
// analysis.json (schemas/analysis.schema.json) and the paragraph that ends the human summary.
#include <string>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::report {

Json analysis_json(const analysis::Bottleneck& bottleneck);
std::string bottleneck_text(const analysis::Bottleneck& bottleneck);

}  // namespace rpl::report
