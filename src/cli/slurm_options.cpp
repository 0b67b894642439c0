#include "slurm_options.hpp"

#include <rpl/core/error.hpp>

namespace rpl::cli {

void add_slurm_options(CLI::App& cmd, workflow::SlurmLaunchOptions& o) {
  cmd.add_option("--launcher", o.launcher, "local (this machine's GPUs) or slurm (each measurement a job step of one allocation)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  cmd.add_option("--slurm-args", o.slurm_args, "options of the allocation, as salloc takes them (\"--partition=gpu --time=00:30:00\")");
  cmd.add_option("--slurm-workers", o.workers, "job steps measuring at once (the allocation's tasks)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd.add_option("--slurm-gpus", o.gpus_per_step, "GPUs per step (0 for a program that needs none)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd.add_option("--shared-dir", o.shared_dir, "a folder every node sees, for runs and builds (default: --out)");
  cmd.add_option("--build-where", o.build_where, "run --build-template as a job step (step) or on this machine (local)")
      ->check(CLI::IsMember({"step", "local"}))
      ->capture_default_str();
  cmd.add_option("--retries", o.retries, "times a step that Slurm ended (node failure, preemption) is tried again")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
}

void check_slurm_options(const CLI::App& cmd, const workflow::SlurmLaunchOptions& o) {
  if (o.slurm()) return;
  for (const char* name : {"--slurm-args", "--slurm-workers", "--slurm-gpus", "--shared-dir", "--build-where", "--retries"}) {
    if (cmd.count(name) > 0) fail(Errc::bad_input, "{} applies to --launcher slurm only", name);
  }
}

}  // namespace rpl::cli
