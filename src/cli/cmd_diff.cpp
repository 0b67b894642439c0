// rocm-perf diff BEFORE AFTER [--fail-on-regression PCT] [--json]: parses, calls workflow::run_diff,
// prints; exit 1 where a kernel regressed beyond the allowance.
#include <iostream>
#include <map>

#include <fmt/format.h>

#include <rpl/core/log.hpp>
#include <rpl/core/text.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/workflow/diff.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

struct DiffOptions {
  OutputOptions output;
  workflow::DiffRequest request;
  std::string before, after;
};

std::string percent_or_dash(const std::optional<analysis::KernelSide>& s) {
  return s ? fmt::format("{:.0f} %", s->share * 100) : "-";
}

std::string noise_text(const analysis::KernelChange& c) {
  return c.noise_pct ? fmt::format("±{:.1f} %", *c.noise_pct) : std::string("unknown");
}

// labels: each kernel's name as the output shows it.
void print_text(const workflow::DiffResult& r, const std::map<std::string, std::string>& labels) {
  for (const auto* p : {&r.before, &r.after}) {
    std::cout << fmt::format("{:<7} {} ({}{}{})\n", p == &r.before ? "before" : "after", p->path,
                             counted(static_cast<size_t>(p->times.runs), "run"), p->gpu ? ", " : "", p->gpu_label());
  }
  const bool bounds = !r.before.roofline_position.empty() || !r.after.roofline_position.empty();
  std::cout << fmt::format("{:<48} {:>11} {:>11} {:>9} {:>9} {:>13}  {}{}\n", "kernel", "before ms", "after ms", "change",
                           "noise", "share", "verdict", bounds ? "  bound" : "");
  for (const auto& c : r.changes) {
    const std::string a = c.before ? fmt::format("{:.4f}", c.before->per_run_ms) : "-";
    const std::string b = c.after ? fmt::format("{:.4f}", c.after->per_run_ms) : "-";
    const bool both = c.before && c.after;
    const std::string change = both ? fmt::format("{:+.1f} %", c.change_pct) : "";
    const std::string noise = both ? noise_text(c) : "";
    std::string bound;
    if (bounds) {
      auto at = [&](const workflow::DiffProfile& p) {
        auto it = p.roofline_position.find(c.name);
        return it == p.roofline_position.end() ? std::string("-") : it->second;
      };
      bound = "  " + (at(r.before) == at(r.after) ? at(r.before) : at(r.before) + " -> " + at(r.after));
    }
    // A long name (templates, C++ signatures) gets a line of its own: cut short, several would look alike.
    const std::string& name = labels.at(c.name);
    if (name.size() > 48) std::cout << name << "\n";
    std::cout << fmt::format("{:<48} {:>11} {:>11} {:>9} {:>9} {:>13}  {}{}\n", name.size() > 48 ? "" : name, a, b, change, noise,
                             percent_or_dash(c.before) + " -> " + percent_or_dash(c.after), analysis::verdict_name(c.verdict),
                             bound);
    const auto o1 = r.before.occupancy_of(c.name), o2 = r.after.occupancy_of(c.name);
    if (o1 && o2) std::cout << fmt::format("{:<48} occupancy {:.1f} % -> {:.1f} %\n", "", *o1 * 100, *o2 * 100);
  }
  std::cout << "ms: the kernel's GPU time in one run, on average; noise: three standard errors of the difference,\n"
               "from both profiles' run-to-run and dispatch-to-dispatch spread.\n";
}

}  // namespace

Action add_diff_command(CLI::App& app) {
  auto o = std::make_shared<DiffOptions>();
  auto* cmd = app.add_subcommand("diff", "compare two profiles kernel by kernel, against their measured noise");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("before", o->before, "profile folder (rocm-perf profile --out) or its profile.json")->required();
  cmd->add_option("after", o->after, "profile folder or profile.json to compare with it")->required();
  cmd->add_option("--fail-on-regression", o->request.fail_on_regression_pct,
                  "exit 1 when a kernel got slower by more than this percent, beyond the noise")
      ->check(CLI::Range(0.0, 1e6));
  return [o]() -> int {
    log::set_debug(o->output.debug);
    o->request.before = o->before;
    o->request.after = o->after;
    workflow::Control control;
    const auto r = workflow::run_diff(o->request, control);
    std::map<std::string, std::string> labels = r.short_names;
    if (o->output.names == analysis::NameStyle::full_names) {
      for (auto& [full, label] : labels) label = full;
    }
    if (o->output.json) {
      std::cout << report::dump(workflow::diff_document(r));
    } else {
      print_warnings(r.warnings);
      print_text(r, labels);
    }
    for (size_t i : r.regressions) {
      const auto& c = r.changes[i];
      std::cerr << fmt::format("regression: {} is {:.1f} % slower (noise {}), over the {} % allowed\n", labels.at(c.name), c.change_pct,
                               noise_text(c), *r.fail_on_regression_pct);
    }
    return r.regressions.empty() ? 0 : 1;
  };
}

}  // namespace rpl::cli
