#pragma once
// Each subcommand registers its options on the app and returns the action to run after parsing.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <rpl/analysis/short_names.hpp>

namespace rpl::cli {

using Action = std::function<int()>;

/// Options every command that prints a result shares.
struct OutputOptions {
  bool json = false;
  bool quiet = false;
  bool debug = false;
  analysis::NameStyle names = analysis::NameStyle::short_names;  // --names short|full
};
void add_output_options(CLI::App& cmd, OutputOptions& options, bool with_quiet);

/// Prints warnings to stderr (human mode only: JSON carries them in its document).
void print_warnings(const std::vector<std::string>& warnings);

Action add_profile_command(CLI::App& app, const std::vector<std::string>& program);
Action add_analyze_command(CLI::App& app);
Action add_occupancy_command(CLI::App& app);
Action add_inspect_command(CLI::App& app);
Action add_autotune_command(CLI::App& app);
Action add_replay_command(CLI::App& app);
Action add_isolate_command(CLI::App& app, const std::vector<std::string>& program);
Action add_export_command(CLI::App& app);
Action add_diff_command(CLI::App& app);
Action add_report_command(CLI::App& app);
Action add_optimize_command(CLI::App& app, const std::vector<std::string>& program);
/// Internal: what each step of autotune --launcher slurm runs (workflow/slurm_step.hpp).
Action add_slurm_step_command(CLI::App& app, const std::vector<std::string>& program);

}  // namespace rpl::cli
