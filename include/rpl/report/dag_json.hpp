#pragma once
// dag.json (schemas/dag.schema.json) and the summary's critical-path lines.
#include <string>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/short_names.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::report {

/// Lists (critical path, cross-stream edges, slack) hold at most this many entries; each says
/// how many there were and whether it was cut.
inline constexpr size_t kDagListLimit = 100'000;

Json dag_json(const analysis::DagResult& dag, const trace::Trace& trace, const analysis::DagOptions& options);

/// Two lines for the human summary: the critical path and the kernel that weighs most on it.
std::string dag_text(const analysis::DagResult& dag, analysis::NameStyle names = analysis::NameStyle::short_names);

}  // namespace rpl::report
