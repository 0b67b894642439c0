// rocm-perf diff BEFORE AFTER [--fail-on-regression PCT] [--json]
#include <algorithm>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rpl/analysis/profile_diff.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "commands.hpp"
#include "profile_folder.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
using Json = nlohmann::json;
namespace {

struct DiffOptions {
  OutputOptions output;
  std::string before, after;
  std::optional<double> fail_on_regression_pct;
};

// One profile: its kernels' times, and what its documents say (profile.json, roofline.json).
struct Profile {
  std::string path;
  analysis::ProfileTimes times;
  Json summary;                               // profile.json
  std::map<std::string, std::string> bound;   // kernel -> roofline position, where roofline.json ran
  bool from_traces = false;
};

// A profile.json alone knows its dominant kernel: its time in all runs and its dispatches' spread.
analysis::ProfileTimes times_from_summary(const Json& summary, const fs::path& file) {
  analysis::ProfileTimes t;
  const auto& k = summary.value("kernel", Json());
  const auto& s = summary.value("stability", Json());
  if (!k.is_object() || !s.is_object() || !k.value("total_ms", Json()).is_number() || !s.value("runs", Json()).is_number()) {
    fail(Errc::bad_input, "{}: not a rocm-perf profile.json with a kernel (no kernel.total_ms or stability.runs)", file.string());
  }
  t.runs = std::max(1, s["runs"].get<int>());
  analysis::KernelTimes kt;
  kt.name = k.value("name", std::string("?"));
  kt.run_ms.assign(static_cast<size_t>(t.runs), k["total_ms"].get<double>() / t.runs);
  kt.dispatches = k.value("dispatches", size_t{1});
  kt.dispatch_stddev_ms = s.value("stddev_ms", 0.0);
  t.kernels.push_back(std::move(kt));
  return t;
}

Profile load_profile(const fs::path& path) {
  Profile p;
  p.path = path.string();
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path summary = path / "profile.json";
    if (!fs::is_regular_file(summary, ec)) {
      fail(Errc::bad_input, "{}: no profile.json here; give a folder that rocm-perf profile wrote, or a profile.json", path.string());
    }
    p.summary = read_json_document(summary);
    const auto dbs = run_databases(path);
    p.from_traces = !dbs.empty();
    p.times = p.from_traces ? analysis::kernel_times(trace::read_rocpd(dbs)) : times_from_summary(p.summary, summary);
    p.bound = roofline_positions(optional_json_document(path / "roofline.json"));
  } else if (fs::is_regular_file(path, ec)) {
    p.summary = read_json_document(path);
    p.times = times_from_summary(p.summary, path);
  } else {
    fail(Errc::bad_input, "{}: no such profile folder or file", path.string());
  }
  return p;
}

std::string gpu_of(const Profile& p) {
  const auto& gpu = p.summary.value("gpu", Json());
  if (!gpu.is_object()) return "";
  return gpu.value("product", std::string()) + " (" + gpu.value("architecture", std::string()) + ")";
}

// The dominant kernel's theoretical occupancy, where the profile computed one.
std::optional<double> occupancy_of(const Profile& p, const std::string& kernel) {
  const auto& k = p.summary.value("kernel", Json());
  const auto& o = p.summary.value("occupancy", Json());
  if (!k.is_object() || k.value("name", std::string()) != kernel || !o.is_object() || !o.value("theoretical", Json()).is_number()) {
    return std::nullopt;
  }
  return o["theoretical"].get<double>();
}

Json side_json(const std::optional<analysis::KernelSide>& s, const Profile& p, const std::string& kernel) {
  if (!s) return nullptr;
  Json j = {{"per_run_ms", report::round6(s->per_run_ms)},
            {"share", report::round6(s->share)},
            {"dispatches_per_run", report::round6(s->dispatches_per_run)}};
  auto bound = p.bound.find(kernel);
  j["bound"] = bound != p.bound.end() ? Json(bound->second) : Json(nullptr);
  const auto occupancy = occupancy_of(p, kernel);
  j["occupancy"] = occupancy ? Json(report::round6(*occupancy)) : Json(nullptr);
  return j;
}

std::string percent_or_dash(const std::optional<analysis::KernelSide>& s) {
  return s ? fmt::format("{:.0f} %", s->share * 100) : "-";
}

// labels: each kernel's name as the output shows it.
void print_text(const Profile& before, const Profile& after, const std::vector<analysis::KernelChange>& changes,
                const std::map<std::string, std::string>& labels) {
  for (const auto* p : {&before, &after}) {
    std::cout << fmt::format("{:<7} {} ({} run{}{}{})\n", p == &before ? "before" : "after", p->path, p->times.runs,
                             p->times.runs == 1 ? "" : "s", gpu_of(*p).empty() ? "" : ", ", gpu_of(*p));
  }
  const bool bounds = !before.bound.empty() || !after.bound.empty();
  std::cout << fmt::format("{:<48} {:>11} {:>11} {:>9} {:>9} {:>13}  {}{}\n", "kernel", "before ms", "after ms", "change",
                           "noise", "share", "verdict", bounds ? "  bound" : "");
  for (const auto& c : changes) {
    const std::string a = c.before ? fmt::format("{:.4f}", c.before->per_run_ms) : "-";
    const std::string b = c.after ? fmt::format("{:.4f}", c.after->per_run_ms) : "-";
    const bool both = c.before && c.after;
    const std::string change = both ? fmt::format("{:+.1f} %", c.change_pct) : "";
    const std::string noise = both ? (c.noise_pct ? fmt::format("±{:.1f} %", *c.noise_pct) : "unknown") : "";
    std::string bound;
    if (bounds) {
      auto at = [&](const Profile& p) {
        auto it = p.bound.find(c.name);
        return it == p.bound.end() ? std::string("-") : it->second;
      };
      bound = "  " + (at(before) == at(after) ? at(before) : at(before) + " -> " + at(after));
    }
    // A long name (templates, C++ signatures) gets a line of its own: cut short, several would look alike.
    const std::string& name = labels.at(c.name);
    if (name.size() > 48) std::cout << name << "\n";
    std::cout << fmt::format("{:<48} {:>11} {:>11} {:>9} {:>9} {:>13}  {}{}\n", name.size() > 48 ? "" : name, a, b, change, noise,
                             percent_or_dash(c.before) + " -> " + percent_or_dash(c.after), analysis::verdict_name(c.verdict),
                             bound);
    const auto o1 = occupancy_of(before, c.name), o2 = occupancy_of(after, c.name);
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
  cmd->add_option("--fail-on-regression", o->fail_on_regression_pct,
                  "exit 1 when a kernel got slower by more than this percent, beyond the noise")
      ->check(CLI::Range(0.0, 1e6));
  return [o]() -> int {
    log::set_debug(o->output.debug);
    const Profile before = load_profile(o->before), after = load_profile(o->after);
    std::vector<std::string> warnings;
    if (!gpu_of(before).empty() && !gpu_of(after).empty() && gpu_of(before) != gpu_of(after)) {
      warnings.push_back(fmt::format("the profiles ran on different GPUs ({} and {}); compared anyway", gpu_of(before), gpu_of(after)));
    }
    if (before.from_traces != after.from_traces) {
      warnings.push_back("one profile is a profile.json alone: only its dominant kernel can be compared");
    }
    const auto changes = analysis::compare_kernel_times(before.times, after.times);
    std::vector<std::string> all_names;
    for (const auto& c : changes) all_names.push_back(c.name);
    const auto short_names = analysis::unique_short_names(all_names);
    std::map<std::string, std::string> labels = short_names;
    if (o->output.names == analysis::NameStyle::full_names) {
      for (auto& [full, label] : labels) label = full;
    }
    std::vector<const analysis::KernelChange*> regressions;
    for (const auto& c : changes) {
      if (o->fail_on_regression_pct && c.verdict == analysis::Verdict::slower && c.change_pct > *o->fail_on_regression_pct) {
        regressions.push_back(&c);
      }
    }
    if (o->output.json) {
      Json doc = report::document_header();
      for (const auto* p : {&before, &after}) {
        doc[p == &before ? "before" : "after"] = {
            {"path", p->path}, {"runs", p->times.runs}, {"gpu", gpu_of(*p).empty() ? Json(nullptr) : Json(gpu_of(*p))}};
      }
      Json kernels = Json::array();
      for (const auto& c : changes) {
        kernels.push_back({{"name", c.name},
                           {"short_name", short_names.at(c.name)},
                           {"before", side_json(c.before, before, c.name)},
                           {"after", side_json(c.after, after, c.name)},
                           {"change_pct", report::round6(c.change_pct)},
                           {"noise_pct", c.noise_pct ? Json(report::round6(*c.noise_pct)) : Json(nullptr)},
                           {"verdict", analysis::verdict_name(c.verdict)}});
      }
      doc["kernels"] = kernels;
      doc["fail_on_regression_pct"] = o->fail_on_regression_pct ? Json(*o->fail_on_regression_pct) : Json(nullptr);
      Json names = Json::array();
      for (const auto* c : regressions) names.push_back(c->name);
      doc["regressions"] = names;
      doc["warnings"] = warnings;
      std::cout << report::dump(doc);
    } else {
      print_warnings(warnings);
      print_text(before, after, changes, labels);
    }
    for (const auto* c : regressions) {
      std::cerr << fmt::format("regression: {} is {:.1f} % slower (noise {}), over the {} % allowed\n", labels.at(c->name), c->change_pct,
                               c->noise_pct ? fmt::format("±{:.1f} %", *c->noise_pct) : std::string("unknown"),
                               *o->fail_on_regression_pct);
    }
    return regressions.empty() ? 0 : 1;
  };
}

}  // namespace rpl::cli
