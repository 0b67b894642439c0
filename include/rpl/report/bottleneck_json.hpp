#pragma once
// analysis.json (schemas/analysis.schema.json), the stall line and the paragraph that end the human
// summary.
#include <string>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::report {

/// With other_kernel_stalls, a thread trace's of another kernel of the trace, under that kernel's name.
Json analysis_json(const analysis::Bottleneck& bottleneck, const analysis::StallAnalysis* other_kernel_stalls = nullptr);
std::string bottleneck_text(const analysis::Bottleneck& bottleneck);
/// "Stalls      memory_dependency 62 %, ...; issue slots 35 % busy, IPC 1.20, branch efficiency 100 %";
/// with of, "Stalls of   <of>" and those on the next line.
std::string stalls_text(const analysis::StallAnalysis& stalls, const std::string& of = "");
/// "SOL         SM 89.9 %, memory 69.5 %, DRAM 16.6 % of their peaks (ncu's speed of light, 3 launches)".
std::string speed_of_light_text(const analysis::SpeedOfLight& sol);
/// "ncu says    TheoreticalOccupancy (estimated local speedup 81.2 %), ..." of the findings with an estimated
/// speedup, the largest first, each rule once; "" where there is none.
std::string tool_findings_text(const std::vector<analysis::KernelFinding>& findings);

}  // namespace rpl::report
