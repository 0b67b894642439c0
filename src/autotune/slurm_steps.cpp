#include "slurm_steps.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>

namespace rpl::autotune {

std::optional<ProcessResult> run_as_step(backends::SlurmAllocation& slurm, const SlurmStep& step,
                                         const std::function<ProcessResult(const std::vector<std::string>&)>& launch,
                                         Measurement& m) {
  std::vector<std::string> exclude;
  for (int attempt = 0;; ++attempt) {
    std::error_code ec;
    std::filesystem::remove(step.status, ec);
    ++slurm.steps;
    const ProcessResult srun = launch(slurm.step_prefix(step.status, step.timeout_seconds, step.with_gpus, exclude));
    if (srun.cancelled) {
      m.interrupted = true;
      return std::nullopt;
    }
    const auto status = backends::read_step_status(step.status);
    if (status && status->finished) {
      ProcessResult r = status->process;
      if (!status->error.empty()) r.exit_status = 127;  // the program could not start: its line is in the log
      return r;
    }
    ++slurm.steps_lost;
    const std::string clue = backends::step_end_clue(step.log);
    if (!slurm.running()) {
      fail(Errc::run_failed, "the Slurm allocation {} has ended ({}): run the same command with --resume to go on in a new one",
           slurm.job_id(), clue.empty() ? "no step can start" : clue);
    }
    const std::string where = status ? " on " + status->node : "";
    log::debug(fmt::format("slurm: a step{} ended without its program's status ({}); try {} of {}", where, clue, attempt + 1,
                           step.retries + 1));
    if (attempt >= step.retries) {
      m.failure = Failure::node_failed;
      m.detail = fmt::format("Slurm ended its step {} times, the last{}: {}", attempt + 1, where, clue);
      return std::nullopt;
    }
    if (status && std::find(exclude.begin(), exclude.end(), status->node) == exclude.end()) exclude.push_back(status->node);
  }
}

}  // namespace rpl::autotune
