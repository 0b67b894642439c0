#pragma once
// roofline.json (schemas/roofline.schema.json), the dominant kernel's record in profile.json, and
// its line in the human summary.
#include <string>

#include <rpl/analysis/roofline.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::report {

Json roofline_json(const analysis::RooflineResult& roofline);
/// One kernel's record (also profile.json's "roofline").
Json kernel_roofline_json(const analysis::KernelRoofline& kernel);
/// ncu's percentages of peak of a kernel (also analysis.json's inputs.speed_of_light).
Json speed_of_light_json(const analysis::SpeedOfLight& sol);
/// "Roofline    ..." for the human summary; empty when the kernel was not measured.
std::string roofline_text(const analysis::KernelRoofline& kernel);

}  // namespace rpl::report
