#pragma once
// An AMD thread trace (or PC-sampling profile) of one dispatch, as the viewer format holds it:
// per instruction, executions and cycles (or samples), and the waves recorded.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rpl::trace {

struct TracedInstruction {
  std::string isa;          // "global_load_dword v1, v[2:3], off"
  int64_t line = 0;         // row in the listing
  std::string source;       // "file.cpp:42" when the code object has line information
  uint64_t vaddr = 0;
  int64_t hits = 0, latency = 0, stall = 0, idle = 0;  // thread trace: executions and cycles, summed over waves
  int64_t pc_issued = 0, pc_stalled = 0;              // PC sampling: samples
};

struct ThreadTrace {
  std::filesystem::path dir;
  bool thread_trace = false;
  bool pc_sampling = false;
  int gfxip = 0;
  // The kernel it traced: code.json's marker row ("; <mangled name>", then the demangled one), and
  // the dispatch the folder names (ui_output_agent_<pid>_dispatch_<n>); empty where not said.
  std::string kernel_mangled, kernel_name;
  std::optional<int64_t> dispatch_id;
  std::vector<TracedInstruction> code;  // marker rows ("; kernel name") left out
  size_t waves = 0;                     // waves the trace recorded
  int64_t wave_cycles = 0;              // from the first wave's start to the last one's end
  int64_t wave_instructions = 0;        // instructions the recorded waves issued
};

}  // namespace rpl::trace
