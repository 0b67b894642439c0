#pragma once
// The instruction-mix category of a SASS opcode as ncu labels its per-opcode instances ("FFMA",
// "HFMA2.MMA", "LDG.E.128"): fp32, fp64, fp16, tensor, integer, load_store, branch or other.
#include <string_view>

namespace rpl::analysis {

std::string_view sass_opcode_category(std::string_view opcode);

}  // namespace rpl::analysis
