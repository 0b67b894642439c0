#pragma once
// autotune --launcher slurm: its options, the allocation and the probe of its nodes before the
// first measurement, and what autotune.json says of it (docs/slurm.md).
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <rpl/backends/slurm.hpp>
#include <rpl/report/autotune_json.hpp>

namespace rpl::workflow {

struct SlurmLaunchOptions {
  std::string launcher = "local";
  std::string slurm_args;        // salloc options, split at spaces (no shell)
  int workers = 1;
  int gpus_per_step = 1;
  std::string shared_dir;        // default: the run's --out
  std::string build_where = "step";
  int retries = 2;
  bool slurm() const { return launcher == "slurm"; }
};

/// Error(bad_input) for --launcher slurm with what it excludes (--devices, --replay).
void check_slurm_launch(const SlurmLaunchOptions& options, bool devices, bool replay);

/// The allocation to be (Error(missing_tool) when Slurm's commands are not here); nothing is asked
/// of Slurm yet.
std::shared_ptr<backends::SlurmAllocation> prepare_slurm(const SlurmLaunchOptions& options);

/// Asks for the allocation, waits for it, and checks that every node sees the shared folder and
/// runs this rocm-perf. The GPU the nodes have when they all have the same one (Error(bad_input)
/// when they differ), none when they have none that can be named.
std::optional<std::string> start_slurm(backends::SlurmAllocation& slurm, const std::string& shared_dir,
                                       const std::atomic<bool>* stop);

report::SlurmSetup slurm_setup(const SlurmLaunchOptions& options, const backends::SlurmAllocation& slurm,
                               const std::string& shared_dir);

}  // namespace rpl::workflow
