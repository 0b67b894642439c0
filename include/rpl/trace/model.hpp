#pragma once
// The trace model: what a profiled run recorded, vendor-neutral, in rocpd's terms.
// One Trace may merge several databases (one per run or process) and several GUIDs per database.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rpl::trace {

/// One database file read into the trace; a "run" of the profiled program.
struct Source {
  std::string path;
  std::vector<std::string> guids;  // processes recorded in it
};

struct Agent {
  int source = 0;
  std::string guid;
  int64_t id = 0;
  std::string type;          // "GPU", "CPU"
  std::string name;          // "gfx942", "sm_90"
  std::string vendor_name;   // "AMD", "NVIDIA"
  std::string product_name;  // "AMD Instinct MI300X"
  // From the agent's extdata JSON, when present.
  std::optional<int> compute_units;
  std::optional<int> simds_per_cu;
  std::optional<int> wave_size;
  std::optional<int> max_waves_per_cu;
  std::optional<double> max_clock_mhz;
  std::optional<int> lds_kib;
};

struct KernelSymbol {
  int source = 0;
  std::string guid;
  int64_t id = 0;
  std::string mangled_name;  // kernel_name
  std::string display_name;  // demangled (or formatted) name
  int64_t arch_vgpr_count = 0;
  int64_t accum_vgpr_count = 0;
  int64_t sgpr_count = 0;
  int64_t group_segment_size = 0;    // static LDS / shared memory
  int64_t private_segment_size = 0;  // scratch / local memory per work-item
  int64_t kernarg_segment_size = 0;
  /// The name shown to people: display_name, else mangled_name.
  const std::string& name() const { return display_name.empty() ? mangled_name : display_name; }
};

struct Dispatch {
  int32_t symbol = -1;  // index into Trace::symbols
  int32_t agent = -1;   // index into Trace::agents, -1 if the agent is unknown
  int32_t source = 0;   // index into Trace::sources
  int64_t id = 0;
  int64_t queue_id = 0;
  int64_t stream_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::array<uint32_t, 3> workgroup{1, 1, 1};
  std::array<uint32_t, 3> grid{1, 1, 1};  // work-items, as AQL counts them
  uint32_t group_segment_size = 0;        // static + dynamic LDS of this dispatch
  uint32_t private_segment_size = 0;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

struct MemoryCopy {
  int32_t source = 0;
  int64_t id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t size = 0;
  std::string name;
  int64_t src_agent_id = 0;
  int64_t dst_agent_id = 0;
  int64_t queue_id = 0;
  int64_t stream_id = 0;
};

struct Trace {
  std::vector<Source> sources;
  std::vector<Agent> agents;
  std::vector<KernelSymbol> symbols;
  std::vector<Dispatch> dispatches;
  std::vector<MemoryCopy> memory_copies;
  std::vector<std::string> warnings;  // non-fatal oddities found while reading
};

}  // namespace rpl::trace
