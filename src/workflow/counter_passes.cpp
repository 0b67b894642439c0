#include "counter_passes.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include <rpl/analysis/roofline.hpp>
#include <rpl/analysis/stalls.hpp>
#include <rpl/backends/ncu_counters.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/core/log.hpp>
#include <rpl/trace/rocpd_counters.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::workflow {
namespace {

std::vector<trace::CounterSample> ncu_samples(const backends::RunOptions& run, const CounterPassOptions& options,
                                              std::vector<std::string>& warnings) {
  const auto metrics = options.metrics.empty() ? backends::default_ncu_metrics() : options.metrics;
  backends::NcuSelection selection;
  std::vector<std::string> roofline;  // counters this GPU may lack, each once
  auto add = [&](const std::vector<std::string>& counters) {
    for (const auto& m : counters) {
      if (std::find(metrics.begin(), metrics.end(), m) == metrics.end() &&
          std::find(roofline.begin(), roofline.end(), m) == roofline.end()) {
        roofline.push_back(m);
      }
    }
  };
  if (options.roofline) {
    // Every NVIDIA architecture shares one recipe; ncu collects what this GPU has of it.
    add(analysis::recipe_counters(*analysis::counter_recipe("sm_90")));
    if (options.launch_count > 0) selection.launch_count = options.launch_count;
  }
  if (options.deep) add(analysis::nvidia_stall_metrics());  // the moves' count is in both
  if (!options.kernel_regex.empty()) selection.kernel_regex = options.kernel_regex;
  auto collected = backends::collect_ncu_counters(run, metrics, selection, roofline);
  for (auto& w : analysis::missing_nvidia_counter_warnings(collected.dropped)) warnings.push_back(std::move(w));
  return std::move(collected.samples);
}

// The GPU architecture the trace ran on ("" when it names none).
std::string traced_architecture(const std::vector<std::filesystem::path>& databases) {
  const auto t = trace::read_rocpd(databases);
  for (const auto& d : t.dispatches) {
    if (d.agent >= 0) return t.agents[static_cast<size_t>(d.agent)].name;
  }
  return "";
}

}  // namespace

void run_counter_passes(const std::string& backend, const backends::RunOptions& run,
                        const std::vector<std::filesystem::path>& databases, const CounterPassOptions& options,
                        std::vector<std::string>& warnings) {
  if (!options.counters && !options.roofline && !options.deep) return;
  std::vector<trace::CounterSample> samples;
  std::string component;
  if (backend == "cuda") {
    samples = ncu_samples(run, options, warnings);
    component = "ncu";
  } else {
    if (!options.roofline) return;  // AMD's --deep is a thread trace, not a counter pass
    const std::string arch = traced_architecture(databases);
    const auto passes = analysis::counter_passes(arch);
    if (passes.empty()) {
      warnings.push_back(fmt::format("{} has no counter formulas for the roofline; no counter pass was run",
                                     arch.empty() ? "the traced GPU" : arch));
      return;
    }
    samples = backends::collect_rocprofv3_counters(run, passes);
    component = "rocprofv3";
  }
  auto stored = trace::store_counters(databases.front(), samples, component);
  log::info(fmt::format("counters: {} values stored in {}", stored.stored, databases.front().string()));
  if (stored.unmatched > 0) {
    warnings.push_back(fmt::format("counters: {} values matched no traced dispatch (the counter run launched other kernels)",
                                   stored.unmatched));
  }
}

}  // namespace rpl::workflow
