// rocm-perf replay reserve-check|full-vm --capture-dir D [--iterations N] [--no-recopy]
//                  [--dump-outputs DIR] [--json]
// rocm-perf replay compare A B [--dtype T --rtol R --atol A] [--json]
// Parses, calls workflow::run_replay or run_compare, prints.
#include <filesystem>
#include <iostream>

#include <rpl/core/error.hpp>
#include <rpl/report/isolate_report.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/replay_json.hpp>
#include <rpl/workflow/replay.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

struct CompareCommand {
  OutputOptions output;
  std::string a, b;
  std::string dtype = "bytes";
  double rtol = 0;
  double atol = 0;
};

struct RunCommand {
  OutputOptions output;
  std::string capture_dir;
  uint64_t iterations = 1;
  bool no_recopy = false;
  std::string dump_dir;
  double timeout = 0;
};

// reserve-check and full-vm: the snapshot is read here first, so that a bad folder fails before
// any GPU work, then the vendor's replayer runs it.
Action add_run_mode(CLI::App& replay, const std::string& mode, const std::string& about) {
  auto o = std::make_shared<RunCommand>();
  auto* cmd = replay.add_subcommand(mode, about);
  add_output_options(*cmd, o->output, false);
  cmd->add_option("--capture-dir", o->capture_dir, "the snapshot folder (rocm-perf isolate --out)")->required();
  cmd->add_option("--timeout", o->timeout, "seconds the replay may take")->check(CLI::PositiveNumber);
  if (mode == "full-vm") {
    cmd->add_option("--iterations", o->iterations, "launches to time")->check(CLI::Range(uint64_t{1}, uint64_t{10'000'000}))->capture_default_str();
    cmd->add_flag("--no-recopy", o->no_recopy, "restore the captured memory before the first iteration only (stateful)");
    cmd->add_option("--dump-outputs", o->dump_dir, "write the memory after the last iteration into this folder");
  }
  return [o, cmd, mode]() -> int {
    if (!cmd->parsed()) return -1;
    workflow::ReplayRequest request{mode, o->capture_dir, o->iterations, !o->no_recopy, o->dump_dir, std::nullopt};
    if (o->timeout > 0) request.timeout_seconds = o->timeout;
    workflow::Control control;
    const auto r = workflow::run_replay(request, control);
    std::cout << (o->output.json ? report::dump(r.document) : report::replay_text(r.document));
    return mode == "reserve-check" ? r.exit_status : 0;
  };
}

}  // namespace

Action add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("replay", "replay a captured dispatch, or compare memory dumps");
  cmd->require_subcommand(1);
  std::vector<Action> modes = {
      add_run_mode(*cmd, "reserve-check", "check that the snapshot's addresses can be reserved here (exit 0 exact, 1 failure, 2 relocated)"),
      add_run_mode(*cmd, "full-vm", "run the captured dispatch alone at its captured addresses and time it")};
  auto o = std::make_shared<CompareCommand>();
  auto* compare = cmd->add_subcommand(
      "compare", "compare two memory dumps (snapshot or --dump-outputs folders) region by region; exit 1 when they differ");
  add_output_options(*compare, o->output, false);
  compare->add_option("A", o->a, "the first folder (memory_regions.json and memory/)")->required();
  compare->add_option("B", o->b, "the second folder")->required();
  compare->add_option("--dtype", o->dtype, "compare as elements of bytes, f16, bf16, f32 or f64")
      ->check(CLI::IsMember({"bytes", "f16", "bf16", "f32", "f64"}))
      ->capture_default_str();
  compare->add_option("--rtol", o->rtol, "relative tolerance of floating-point elements")->check(CLI::NonNegativeNumber);
  compare->add_option("--atol", o->atol, "absolute tolerance of floating-point elements")->check(CLI::NonNegativeNumber);
  return [o, compare, modes]() -> int {
    for (const auto& mode : modes) {
      if (const int rc = mode(); rc >= 0) return rc;
    }
    if (!compare->parsed()) return exit_code(Errc::internal);
    workflow::CompareRequest request{o->a, o->b, {}};
    request.options.type = *isolate::element_type_from_name(o->dtype);
    request.options.rtol = o->rtol;
    request.options.atol = o->atol;
    workflow::Control control;
    const auto r = workflow::run_compare(request, control);
    if (o->output.json) {
      std::cout << report::dump(report::memory_comparison_json(r.comparison, r.a, r.b, r.options));
    } else {
      std::cout << report::memory_comparison_text(r.comparison, r.options);
    }
    return r.comparison.equal() ? 0 : exit_code(Errc::run_failed);
  };
}

}  // namespace rpl::cli
