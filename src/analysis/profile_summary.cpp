#include <rpl/analysis/profile_summary.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/analysis/run_grouping.hpp>
#include <rpl/core/error.hpp>
#include <rpl/hal/arch.hpp>

namespace rpl::analysis {
namespace {

constexpr double kNsPerMs = 1e6;

GpuSummary summarize_gpu(const trace::Agent* agent, const std::string& arch_name) {
  GpuSummary gpu;
  gpu.architecture = arch_name;
  const auto* amd = hal::find_amd_arch(arch_name);
  const auto* nv = hal::find_nvidia_arch(arch_name);
  const hal::ProductDefaults* product = amd ? &amd->product : nv ? &nv->product : nullptr;
  gpu.vendor = amd ? "AMD" : nv ? "NVIDIA" : "";
  if (agent && !agent->vendor_name.empty()) gpu.vendor = agent->vendor_name;
  // What the trace says about the device wins over the table's typical product.
  if (agent && !agent->product_name.empty()) {
    gpu.product = agent->product_name;
    gpu.product_recorded = true;
  } else if (product) {
    gpu.product = std::string(product->name);
  }
  if (agent && agent->compute_units && *agent->compute_units > 0) {
    gpu.compute_units = agent->compute_units;
  } else if (product && product->compute_units > 0) {
    gpu.compute_units = product->compute_units;
  }
  if (agent && agent->wave_size && *agent->wave_size > 0) {
    gpu.wave_size = agent->wave_size;
  } else if (amd) {
    gpu.wave_size = amd->default_wave_size;
  } else if (nv) {
    gpu.wave_size = nv->warp_size;
  }
  if (agent && agent->max_clock_mhz && *agent->max_clock_mhz > 0) {
    gpu.max_clock_mhz = agent->max_clock_mhz;
  } else if (product && product->max_clock_mhz > 0) {
    gpu.max_clock_mhz = product->max_clock_mhz;
  }
  return gpu;
}

ResourceSummary summarize_resources(const trace::KernelSymbol& symbol, const trace::DispatchGeometry& dispatch) {
  ResourceSummary r;
  r.vgpr_per_thread = symbol.arch_vgpr_count;
  r.agpr_per_thread = symbol.accum_vgpr_count;
  r.sgpr_per_wave = symbol.sgpr_count;
  r.static_lds_bytes = symbol.group_segment_size;
  // The dispatch's group segment (as in the AQL packet) already holds static plus dynamic LDS.
  r.lds_bytes = std::max<int64_t>(dispatch.group_segment_size, symbol.group_segment_size);
  r.dynamic_lds_bytes = r.lds_bytes - r.static_lds_bytes;
  r.lds_split_known = symbol.lds_split_known;
  r.registers_known = symbol.registers_known;
  r.barriers = symbol.barriers;
  r.scratch_bytes = dispatch.private_segment_size > 0 ? dispatch.private_segment_size : symbol.private_segment_size;
  return r;
}

std::optional<hal::OccupancyResult> occupancy_of(const std::string& arch_name, const ResourceSummary& r, int block,
                                                 const std::optional<int>& wave_size, std::vector<std::string>& warnings) {
  try {
    if (const auto* amd = hal::find_amd_arch(arch_name)) {
      hal::AmdKernelResources k;
      k.arch_vgprs = static_cast<int>(r.vgpr_per_thread);
      k.accum_vgprs = static_cast<int>(r.agpr_per_thread);
      k.sgprs = static_cast<int>(r.sgpr_per_wave);
      k.lds_bytes = r.lds_bytes;
      if (wave_size && (*wave_size == 32 || *wave_size == 64)) k.wave_size = *wave_size;
      return hal::amd_occupancy(*amd, k, block);
    }
    if (const auto* nv = hal::find_nvidia_arch(arch_name)) {
      hal::NvidiaKernelResources k;
      k.regs_per_thread = static_cast<int>(r.vgpr_per_thread);
      k.static_smem = r.static_lds_bytes;
      k.dynamic_smem = r.dynamic_lds_bytes;
      if (r.barriers) k.barriers = *r.barriers;
      return hal::nvidia_occupancy(*nv, k, block);
    }
    warnings.push_back(fmt::format("no occupancy rules for architecture '{}'; occupancy is not computed",
                                   arch_name.empty() ? "(unknown)" : arch_name));
  } catch (const Error& e) {
    warnings.push_back(fmt::format("occupancy not computed: {}", e.what()));
  }
  return std::nullopt;
}

// ncu's own theoretical occupancy of a dispatch in percent, where the trace has it (an Nsight
// Compute file: its Occupancy section, or the raw metric).
std::optional<double> ncu_theoretical_occupancy(const trace::Trace& trace, uint32_t dispatch) {
  const auto name = std::find(trace.counter_names.begin(), trace.counter_names.end(), "sm__maximum_warps_per_active_cycle_pct");
  if (name == trace.counter_names.end()) return std::nullopt;
  const auto counter = static_cast<uint32_t>(name - trace.counter_names.begin());
  // Counter values are grouped by dispatch, in the order of the dispatches.
  auto v = std::lower_bound(trace.counter_values.begin(), trace.counter_values.end(), dispatch,
                            [](const trace::CounterValue& c, uint32_t d) { return c.dispatch < d; });
  for (; v != trace.counter_values.end() && v->dispatch == dispatch; ++v) {
    if (v->counter == counter) return v->value;
  }
  return std::nullopt;
}

// Where ncu gave its own figure for the launch and it is not ours, ncu's is the measured one.
void check_against_ncu(const trace::Trace& trace, uint32_t dispatch, const hal::OccupancyResult& ours, std::vector<std::string>& warnings) {
  const auto theirs = ncu_theoretical_occupancy(trace, dispatch);
  if (!theirs || std::abs(*theirs - 100 * ours.theoretical) <= 0.5) return;
  warnings.push_back(fmt::format("the occupancy here ({:.1f} %) is not ncu's own theoretical occupancy of the same launch ({:.1f} %): "
                                 "the launch had a limit the trace does not give (a shared-memory carveout, a thread-block "
                                 "cluster); take ncu's",
                                 100 * ours.theoretical, *theirs));
}

}  // namespace

ProfileSummary summarize_trace(const trace::Trace& trace, const AnalyzeOptions& options) {
  KernelSelection sel = select_dominant_kernel(trace, options.kernel_regex);
  const KernelGroup& g = sel.kernel;
  const trace::Dispatch& longest = trace.dispatches[g.longest_dispatch];
  const trace::DispatchGeometry& launch = trace.geometry(longest);
  const trace::KernelSymbol& symbol = trace.symbols[longest.symbol];
  const trace::Agent* agent = longest.agent >= 0 ? &trace.agents[longest.agent] : nullptr;

  ProfileSummary s;
  s.warnings = trace.warnings;
  s.warnings.insert(s.warnings.end(), sel.warnings.begin(), sel.warnings.end());

  KernelSummary k;
  k.name = g.display_name;
  k.mangled_name = g.mangled_name;
  k.grid = launch.grid;
  k.block = launch.workgroup;
  k.dispatches = g.dispatches.size();
  k.total_ms = static_cast<double>(g.total_ns) / kNsPerMs;
  k.time_fraction = sel.time_fraction;
  k.longest_dispatch_id = longest.id;
  k.longest_dispatch_ms = static_cast<double>(g.longest_ns) / kNsPerMs;
  s.kernel = k;
  s.ranks = rank_spread(trace, g.mangled_name);

  const RunGrouping runs = group_runs(trace);
  std::set<std::array<uint32_t, 3>> blocks;
  std::set<int> runs_with_kernel;
  std::vector<double> samples;
  samples.reserve(g.dispatches.size());
  for (int32_t i : g.dispatches) {
    const auto& d = trace.dispatches[i];
    samples.push_back(static_cast<double>(d.duration_ns()) / kNsPerMs);
    blocks.insert(trace.geometry(d).workgroup);
    runs_with_kernel.insert(runs.run_of_source[static_cast<size_t>(d.source)]);
  }
  s.stability = compute_stability(std::move(samples), runs.runs, runs.processes);
  s.runtime_ms = s.stability.mean_ms;
  if (static_cast<int>(runs_with_kernel.size()) < runs.runs) {
    s.warnings.push_back(fmt::format("the selected kernel ran in {} of {} runs", runs_with_kernel.size(), runs.runs));
  }
  if (blocks.size() > 1) {
    s.warnings.push_back(fmt::format(
        "the selected kernel was dispatched with {} different block sizes; occupancy is for its longest dispatch",
        blocks.size()));
  }
  if (s.stability.classification == "unstable") {
    s.warnings.push_back(fmt::format("kernel timing is unstable (cv {:.3f}); compare results with care", s.stability.cv));
  } else if (s.stability.classification == "single_sample") {
    s.warnings.push_back("the selected kernel ran once: its time is a single sample, whose spread is unknown; compare results with care");
  }

  const std::string arch_name = agent ? hal::normalize_arch_name(agent->name) : std::string();
  if (!agent) s.warnings.push_back("the selected kernel's agent is not in the trace; GPU properties are unknown");
  s.gpu = summarize_gpu(agent, arch_name);
  s.backend = s.gpu->vendor == "NVIDIA" ? "cuda" : "rocm";
  s.resources = summarize_resources(symbol, launch);
  s.occupancy = dispatch_occupancy(trace, longest, s.warnings);
  if (s.occupancy) check_against_ncu(trace, static_cast<uint32_t>(g.longest_dispatch), *s.occupancy, s.warnings);
  return s;
}

std::optional<hal::OccupancyResult> dispatch_occupancy(const trace::Trace& trace, const trace::Dispatch& dispatch,
                                                       std::vector<std::string>& warnings) {
  if (dispatch.symbol < 0) return std::nullopt;
  if (!trace.symbols[static_cast<size_t>(dispatch.symbol)].registers_known) return std::nullopt;  // the reader said why
  const trace::Agent* agent = dispatch.agent >= 0 ? &trace.agents[static_cast<size_t>(dispatch.agent)] : nullptr;
  const std::string arch_name = agent ? hal::normalize_arch_name(agent->name) : std::string();
  const auto& launch = trace.geometry(dispatch);
  const int block = static_cast<int>(std::min<uint32_t>(launch.block_size(), INT32_MAX));
  return occupancy_of(arch_name, summarize_resources(trace.symbols[static_cast<size_t>(dispatch.symbol)], launch), block,
                      summarize_gpu(agent, arch_name).wave_size, warnings);
}

ProfileSummary summarize_wallclock(const std::vector<double>& run_seconds) {
  ProfileSummary s;
  s.backend = "wallclock";
  std::vector<double> ms;
  for (double sec : run_seconds) ms.push_back(sec * 1e3);
  const int runs = static_cast<int>(run_seconds.size());
  s.stability = compute_stability(ms, runs, runs);
  s.runtime_ms = s.stability.mean_ms;
  if (s.stability.classification == "unstable") {
    s.warnings.push_back(fmt::format("run time is unstable (cv {:.3f}); compare results with care", s.stability.cv));
  } else if (s.stability.classification == "single_sample") {
    s.warnings.push_back("one run: its time is a single sample, whose spread is unknown; compare results with care");
  }
  return s;
}

}  // namespace rpl::analysis
