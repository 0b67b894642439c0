#pragma once
// autotune's --launcher slurm options (workflow::SlurmLaunchOptions) on the command line.
#include <CLI/CLI.hpp>

#include <rpl/workflow/autotune_slurm.hpp>

namespace rpl::cli {

void add_slurm_options(CLI::App& cmd, workflow::SlurmLaunchOptions& options);

/// Error(bad_input) for a Slurm option given without --launcher slurm.
void check_slurm_options(const CLI::App& cmd, const workflow::SlurmLaunchOptions& options);

}  // namespace rpl::cli
