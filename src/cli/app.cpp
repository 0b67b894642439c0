#include "app.hpp"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/git_commit.hpp>
#include <rpl/version.hpp>

#include "commands.hpp"

namespace rpl::cli {

void add_output_options(CLI::App& cmd, OutputOptions& options, bool with_quiet) {
  cmd.add_flag("--json", options.json, "print the result document alone on stdout");
  if (with_quiet) cmd.add_flag("--quiet", options.quiet, "print one figure only");
  cmd.add_flag("--debug", options.debug, "print the commands run and keep temporary folders");
  cmd.add_option("--names", options.names,
                 "kernel names in the human output: short (the qualified name, template arguments abbreviated) or full; JSON "
                 "gives both")
      ->transform(CLI::CheckedTransformer(std::map<std::string, analysis::NameStyle>{{"short", analysis::NameStyle::short_names},
                                                                                    {"full", analysis::NameStyle::full_names}}));
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
}

namespace {
std::string version_text() { return fmt::format("{} {} (commit {})", kToolName, kVersion, kGitCommit); }
}  // namespace

int run(const std::vector<std::string>& args) {
  // Everything after the first "--" is the profiled program's argv, untouched by our parser.
  auto dashes = std::find(args.begin(), args.end(), std::string("--"));
  std::vector<std::string> program(dashes == args.end() ? dashes : dashes + 1, args.end());
  std::vector<std::string> ours(args.begin(), dashes);

  CLI::App app{"rocm-perf: GPU kernel performance lab (AMD ROCm and NVIDIA CUDA)", "rocm-perf"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  std::vector<Action> actions = {add_profile_command(app, program), add_analyze_command(app), add_occupancy_command(app),
                                 add_inspect_command(app), add_autotune_command(app),
                                 add_isolate_command(app, program), add_replay_command(app), add_export_command(app),
                                 add_diff_command(app), add_report_command(app), add_optimize_command(app, program),
                                 add_slurm_step_command(app, program)};
  std::vector<CLI::App*> subs = app.get_subcommands([](const CLI::App*) { return true; });
  try {
    if (ours.size() > 1 && ours[1].rfind('-', 0) != 0) {
      std::string names;
      bool known = false;
      for (auto* sub : subs) {
        known |= sub->get_name() == ours[1];
        if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known) fail(Errc::bad_input, "unknown command '{}' (commands: {})", ours[1], names);
    }
    std::vector<std::string> reversed(ours.rbegin(), ours.rend() - (ours.empty() ? 0 : 1));
    app.parse(reversed);
    if (dashes != args.end() && !app.got_subcommand("profile") && !app.got_subcommand("isolate") && !app.got_subcommand("optimize") &&
        !app.got_subcommand("slurm-step")) {
      fail(Errc::bad_input, "'--' and a program to run are only accepted by 'profile', 'isolate' and 'optimize'");
    }
    for (size_t i = 0; i < subs.size(); ++i) {
      if (subs[i]->parsed()) return actions[i]();
    }
    return exit_code(Errc::internal);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints the help of the (sub)command asked about
  } catch (const CLI::CallForVersion&) {
    std::cout << version_text() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "rocm-perf: error: " << e.what() << " (see rocm-perf --help)\n";
    return exit_code(Errc::bad_input);
  } catch (const Error& e) {
    std::cerr << "rocm-perf: error: " << e.what() << "\n";
    return exit_code(e.code());
  } catch (const std::exception& e) {
    std::cerr << "rocm-perf: internal error: " << e.what() << "\n";
    return exit_code(Errc::internal);
  }
}

}  // namespace rpl::cli
