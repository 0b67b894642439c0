// rocm-perf replay compare A B [--dtype T --rtol R --atol A] [--json]
#include <iostream>

#include <rpl/core/error.hpp>
#include <rpl/isolate/memory_compare.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/replay_json.hpp>

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

}  // namespace

Action add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("replay", "replay a captured dispatch, or compare memory dumps");
  cmd->require_subcommand(1);
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
  return [o, compare]() -> int {
    if (!compare->parsed()) return exit_code(Errc::internal);
    isolate::CompareOptions options;
    options.type = *isolate::element_type_from_name(o->dtype);
    options.rtol = o->rtol;
    options.atol = o->atol;
    if (options.type == isolate::ElementType::bytes && (o->rtol > 0 || o->atol > 0)) {
      fail(Errc::bad_input, "--rtol and --atol apply to floating-point elements: give --dtype f16, bf16, f32 or f64");
    }
    const auto a = isolate::read_memory_image(o->a);
    const auto b = isolate::read_memory_image(o->b);
    const auto result = isolate::compare_memory(a, b, options);
    if (o->output.json) {
      std::cout << report::dump(report::memory_comparison_json(result, a, b, options));
    } else {
      std::cout << report::memory_comparison_text(result, options);
    }
    return result.equal() ? 0 : exit_code(Errc::run_failed);
  };
}

}  // namespace rpl::cli
