#pragma once
// The counter passes of profile --counters / --roofline: the program run again under ncu
// (NVIDIA) or once per counter group under rocprofv3 --pmc (AMD), the values stored in the first
// run's trace database, matched to its dispatches by kernel and launch order.
#include <filesystem>
#include <string>
#include <vector>

#include <rpl/backends/run_options.hpp>

namespace rpl::workflow {

struct CounterPassOptions {
  bool counters = false;               // --counters: ncu with `metrics`
  bool roofline = false;               // --roofline: the counters of the architecture's roofline recipe
  bool deep = false;                   // --deep: stall reasons, instruction mix, IPC (NVIDIA)
  std::vector<std::string> metrics;    // --metrics (ncu)
  std::string kernel_regex;            // limits ncu's replay
  int launch_count = 0;                // limits ncu's replay (0: all)
};

/// On the ROCm backend only --roofline applies (the caller refuses --counters and --deep before
/// anything runs). What went wrong without stopping the profile is added to warnings.
void run_counter_passes(const std::string& backend, const backends::RunOptions& run,
                        const std::vector<std::filesystem::path>& databases, const CounterPassOptions& options,
                        std::vector<std::string>& warnings);

}  // namespace rpl::workflow
