#pragma once
// One program run (or build) as a job step of a Slurm allocation, tried again when Slurm rather than
// the program ends the step (docs/slurm.md).
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rpl/autotune/measurement.hpp>
#include <rpl/backends/slurm.hpp>

namespace rpl::autotune {

struct SlurmStep {
  std::filesystem::path status;           // where slurm-step writes what the program did
  std::filesystem::path log;              // the step's output, for Slurm's last word on it
  std::optional<double> timeout_seconds;  // the step kills its program past it
  bool with_gpus = true;                  // a run has the step's GPUs; a build none
  int retries = 2;
};

/// Runs launch(the srun words to put before the program) until the step reports its program's own
/// outcome, and returns that. A step Slurm ended is started again, on another node while one is
/// left; past the retries m says node_failed. None when m is interrupted or node_failed.
/// Error(run_failed) when the allocation itself has ended: no step can run any more.
std::optional<ProcessResult> run_as_step(backends::SlurmAllocation& slurm, const SlurmStep& step,
                                         const std::function<ProcessResult(const std::vector<std::string>&)>& launch,
                                         Measurement& m);

}  // namespace rpl::autotune
