// rocm-perf optimize --source FILE --build "CMD {SOURCE} ... {BINARY}" [opts] -- {BINARY} ARGS...
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include <rpl/autotune/command_template.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/isolate/memory_compare.hpp>

#include <rpl/workflow/optimize.hpp>

#include "commands.hpp"
#include "optimize_output.hpp"

namespace rpl::cli {
namespace {

// The loop's lines on stderr as it goes (not with --json); warnings come with the summary.
class OptimizeProgress : public workflow::Observer {
 public:
  void on_event(const workflow::Event& event) override {
    if (event.kind != workflow::EventKind::warning && !event.message.empty()) std::cerr << event.message << "\n" << std::flush;
  }
};

}  // namespace

Action add_optimize_command(CLI::App& app, const std::vector<std::string>& program) {
  auto o = std::make_shared<workflow::OptimizeRequest>();
  auto output = std::make_shared<OutputOptions>();
  auto text = std::make_shared<std::pair<std::string, std::string>>();  // --check-args, --dtype
  auto key_env = std::make_shared<std::string>("OPENAI_API_KEY");
  auto* cmd = app.add_subcommand(
      "optimize", "rewrite the kernel that holds the critical path, keep only changes proven correct on its captured "
                  "dispatch and measured faster (the source is written only with --apply)");
  add_output_options(*cmd, *output, false);
  cmd->add_option("--source", o->source, "the CUDA or HIP file that defines the kernel")->required();
  cmd->add_option("--build", o->build, "the build command, with {SOURCE} (a variant's path) or {SOURCE_DIR} (its folder, with copies of the "
                                   "sources beside the original), and {BINARY} (its output)")->required();
  cmd->add_option("--kernel", o->kernel_regex, "regular expression choosing the kernel (default: the first by its share of the "
                                               "critical path that the source defines)");
  cmd->add_option("--runs", o->runs, "runs of each profile of the program")->check(CLI::Range(1, 100))->capture_default_str();
  cmd->add_option("--dispatch", o->dispatch, "which launch of the kernel is the oracle, from 0 (a later one is the second opinion)")
      ->capture_default_str();
  cmd->add_option("--check-args", text->first, "a second command line (with {BINARY}) whose same dispatch is the second oracle");
  cmd->add_option("--out", o->out, "output folder (optimize.json, best.patch, best/, llm/, oracle/, work/)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "auto, rocm or cuda")->check(CLI::IsMember({"auto", "rocm", "cuda"}))->capture_default_str();
  cmd->add_flag("!--no-unroll", o->unroll, "propose no #pragma unroll variants");
  cmd->add_flag("!--no-launch-bounds", o->launch_bounds, "propose no __launch_bounds__ (AMD: amdgpu_flat_work_group_size) variants");
  cmd->add_flag("!--no-restrict", o->restrict_pointers, "propose no __restrict__ on the kernel's pointer parameters");
  cmd->add_option("--allow-unused-param", o->allow_unused_params,
                  "a parameter (by the original's name) that a candidate may stop reading; repeatable");
  cmd->add_option("--candidate", o->candidate_files, "a file holding a new definition of the kernel (repeatable)");
  cmd->add_option("--llm-url", o->llm.url, "an OpenAI-compatible chat-completions server (\"http://localhost:8000/v1\")");
  cmd->add_option("--llm-model", o->llm.model, "the model to ask");
  cmd->add_option("--llm-key-env", *key_env, "the environment variable holding the API key")->capture_default_str();
  cmd->add_option("--llm-rounds", o->llm_rounds, "requests, each refining the best candidate so far")->check(CLI::Range(0, 100))->capture_default_str();
  cmd->add_option("--repair-attempts", o->repair_attempts, "times a candidate that does not build goes back with its errors")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  cmd->add_option("--dtype", text->second, "compare outputs as bytes, f16, bf16, f32 or f64 (with --rtol/--atol)")
      ->check(CLI::IsMember({"bytes", "f16", "bf16", "f32", "f64"}));
  cmd->add_option("--rtol", o->compare.rtol, "relative tolerance of floating-point outputs (and of --check-output numbers)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--atol", o->compare.atol, "absolute tolerance of floating-point outputs (and of --check-output numbers)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", o->timeout, "seconds a run of the program or a replay may take")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--build-timeout", o->build_timeout, "seconds a build may take")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--iterations", o->pairs, "pairs of replays (original, candidate) that time each candidate")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  cmd->add_option("--check-output", o->check_output, "regular expression: the program's output lines it matches must equal the original's");
  cmd->add_flag("--apply", o->apply, "write the winner into --source at the end");
  cmd->add_option("--jobs", o->jobs, "builds at once (default: one per core)");
  return [o, output, text, key_env, cmd, program]() -> int {
    log::set_debug(output->debug);
    o->program = program;
    if (!text->first.empty()) {
      // Split as a shell would, never run through one; {BINARY} is kept for each variant.
      o->check_args = autotune::CommandTemplate(text->first, "--check-args").instantiate([](const std::string& n) { return "{" + n + "}"; });
    }
    if (!text->second.empty()) o->compare.type = *isolate::element_type_from_name(text->second);
    if (o->check_output.empty()) isolate::check_tolerances_apply(o->compare);  // else they apply to its numbers
    if (!o->llm.url.empty()) {
      if (o->llm.model.empty()) fail(Errc::bad_input, "--llm-url needs --llm-model");
      if (const char* key = std::getenv(key_env->c_str())) o->llm.api_key = key;
    }
    StopSignals stop;  // Ctrl-C stops the program being run; the user's source is never written before the end
    const bool json = output->json;
    // Ctrl-C is not the build's or the program's fault: one line, exit 1, the source untouched.
    const auto interrupted = [&](const std::string& measured) {
      fail(Errc::run_failed, "interrupted; {} is as it was{}", o->source.string(), measured);
    };
    OptimizeProgress progress;
    workflow::Control control(json ? nullptr : &progress, active_stop_flag());
    workflow::OptimizeResult outcome;
    try {
      outcome = workflow::run_optimize(*o, control);
    } catch (const Error&) {
      if (stop_requested()) interrupted("");
      throw;
    }
    const auto doc = workflow::optimize_document(outcome, o->source);
    write_output_file(o->out / "optimize.json", report::dump(doc));
    if (outcome.interrupted) interrupted("; what was measured is in " + (o->out / "optimize.json").string());
    if (json) {
      std::cout << report::dump(doc);
    } else {
      std::cout << optimize_text(outcome, o->source, o->out);
      print_warnings(outcome.warnings);
    }
    return outcome.best ? 0 : 1;
  };
}

}  // namespace rpl::cli
