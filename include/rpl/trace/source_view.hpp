#pragma once
// NVIDIA's source view of one profiled kernel (ncu's source page): warp-stall samples per SASS
// instruction and per source line.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpl::trace {

struct SampledInstruction {
  uint64_t address = 0;         // as loaded in the profiled process
  std::string sass;
  int64_t samples = 0;          // warp-stall samples at this instruction, all of them
  int64_t not_issued_samples = 0;
  int64_t executed = 0;         // warp-level instructions executed
  std::optional<int64_t> line;  // the source line it belongs to, where the view has lines
  std::string top_reason;       // ncu's stall reason with the most samples here (e.g. long_scoreboard); "" when none
};

struct SampledLine {
  int64_t line = 0;
  std::string text;
  int64_t samples = 0;
  int64_t not_issued_samples = 0;
};

struct SourceView {
  std::string function;  // as ncu names it (demangled, with ncu's spacing)
  std::string file;      // "" without line information
  std::vector<SampledLine> lines;
  std::vector<SampledInstruction> instructions;
};

}  // namespace rpl::trace
