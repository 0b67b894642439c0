#include <rpl/report/autotune_json.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rpl/core/subprocess.hpp>
#include <rpl/core/units.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::report {
namespace {

std::string configuration_text(const autotune::SearchSpace& space, size_t c) {
  std::string out;
  for (size_t p = 0; p < space.parameters.size(); ++p) {
    if (p) out += ' ';
    out += space.parameters[p].name + "=" + space.value(c, p).text;
  }
  return out;
}

std::string value_text(double v, const AutotuneSetup& setup) {
  return setup.unit.empty() ? fmt::format("{:.6g}", v) : fmt::format("{:.6g} {}", v, setup.unit);
}

const autotune::MeasuredConfiguration* measured(const autotune::TuneResult& result, size_t c) {
  for (const auto& m : result.measured) {
    if (m.configuration == c) return &m;
  }
  return nullptr;
}

// The values the rounds of re-measurement gave configuration c, in order (none where no round measured it).
std::vector<double> remeasured_values(const autotune::TuneResult& result, size_t c) {
  std::vector<double> out;
  for (const auto& r : result.remeasured) {
    if (r.configuration != c) continue;
    for (const auto& x : r.rounds) out.push_back(x.value);
  }
  return out;
}

// Where the configuration nearest the centre of the space was measured (its index in the order
// measured), if it was.
std::optional<size_t> centre_order(const autotune::TuneResult& result) {
  const auto* m = result.centre ? measured(result, *result.centre) : nullptr;
  if (!m) return std::nullopt;
  return static_cast<size_t>(m - result.measured.data());
}

// The model that guided the search: the quadratic one (model), the Gaussian process (bayes), or
// none (random search, a spread).
Json model_json(const autotune::SearchSpace& space, const autotune::TuneResult& result) {
  if (result.strategy == autotune::Strategy::bayes && result.measured_in("guided") > 0) {
    const auto& p = result.process;
    Json scales = Json::object();
    for (size_t i = 0; i < p.length_scales.size() && i < p.features.size(); ++i) scales[p.features[i]] = round6(p.length_scales[i]);
    Json centre;
    if (result.centre) {
      const auto at = centre_order(result);
      centre = {{"configuration", space.to_json(*result.centre)},
                {"measured", at ? Json(*at + 1) : Json()},
                {"phase", at ? Json(result.measured[*at].phase) : Json()}};
    }
    Json likeliest;
    if (const auto& l = result.likeliest_better) {
      likeliest = {{"configuration", space.to_json(l->configuration)}, {"chance", round6(l->chance)}, {"margin", round6(l->margin)}};
    }
    return {{"kind", "gaussian_process_matern52_log"},
            {"fitted", p.fitted},
            {"observations", p.observations},
            {"length_scales", scales},
            {"noise", round6(p.noise)},
            {"log_likelihood", round6(p.log_likelihood)},
            {"centre", centre},
            {"likeliest_better", likeliest}};
  }
  if (result.strategy != autotune::Strategy::model || result.measured_in("seed") == 0) return nullptr;
  const auto& fit = result.model;
  return {{"kind", "quadratic_ridge_log"},
          {"fitted", fit.fitted},
          {"observations", fit.observations},
          {"terms", fit.terms},
          {"r2", round6(fit.r2)},
          {"cv_r2", round6(fit.cv_r2)},
          {"residual_sd", round6(fit.residual_sd)},
          {"ridge_lambda", fit.ridge_lambda},
          {"features", fit.features},
          {"trusted", result.model_trusted},
          {"explore_rounds", result.explore_rounds},
          {"prune_factor", round6(result.prune_factor_used)},
          {"pruned", result.pruned},
          {"survivors", result.survivors}};
}

// "seed 4, guided 8": the configurations each phase measured, in the order phases run.
std::string phases_text(const autotune::TuneResult& result) {
  std::string out;
  for (const char* phase : {"spread", "seed", "explore", "guided", "confirm", "random"}) {
    if (const size_t n = result.measured_in(phase)) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", phase, n);
  }
  return out.empty() ? "none" : out;
}

// What the JSON and the text both count: the measurements answered from the cache, the
// re-measurements of the best, and the seconds each took in this run (those from the cache none):
// what a time budget spends, replayed in the recorded seconds.
struct MeasuredTotals {
  size_t cached = 0, remeasurements = 0;
  double seconds = 0, remeasurement_seconds = 0;
};

MeasuredTotals measured_totals(const autotune::TuneResult& result) {
  MeasuredTotals t;
  for (const auto& m : result.measured) {
    t.cached += m.cached ? 1 : 0;
    t.seconds += m.cached ? 0 : m.measurement.seconds;
  }
  for (const auto& r : result.remeasured) {
    t.remeasurements += r.rounds.size();
    for (const auto& m : r.rounds) t.remeasurement_seconds += m.seconds;
  }
  return t;
}

}  // namespace

nlohmann::ordered_json autotune_json(const autotune::SearchSpace& space, const autotune::TuneResult& result,
                                     const AutotuneSetup& setup, const std::vector<std::string>& best_command) {
  Json j = document_header();
  Json params = Json::array(), derived = Json::array();
  for (const auto& p : space.parameters) params.push_back(p.name);
  for (const auto& d : space.derived) derived.push_back(d.name);
  j["space"] = {{"file", setup.space_file},           {"combinations", result.combinations},
                {"rejected_by_constraints", result.rejected}, {"size", result.space_size},
                {"parameters", params},                {"derived", derived}};
  j["command"] = {{"template", setup.command_template},
                  {"build_template", setup.build_template.empty() ? Json() : Json(setup.build_template)}};
  j["objective"] = {{"kind", setup.objective},
                    {"unit", setup.unit.empty() ? Json() : Json(setup.unit)},
                    {"direction", setup.maximize ? "maximize" : "minimize"},
                    {"selector", setup.selector.empty() ? Json() : Json(setup.selector)},
                    {"kernel", setup.kernel.empty() ? Json() : Json(setup.kernel)}};
  j["device"] = {{"name", setup.device}, {"workers", setup.devices.empty() ? Json::array() : Json(setup.devices)}};
  if (const auto& s = setup.slurm) {
    j["launcher"] = {{"kind", "slurm"},          {"job_id", s->job_id},     {"nodes", s->nodes},
                     {"workers", s->workers},    {"gpus_per_step", s->gpus_per_step}, {"shared_dir", s->shared_dir},
                     {"builds", s->builds},      {"retries", s->retries},   {"steps", s->steps},
                     {"steps_ended_by_slurm", s->steps_lost}};
  } else {
    j["launcher"] = {{"kind", "local"}};
  }
  const size_t total = result.measured.size();
  const auto totals = measured_totals(result);
  j["strategy"] = autotune::strategy_name(result.strategy);
  j["batch"] = result.strategy == autotune::Strategy::bayes ? Json(result.batch) : Json();
  j["warm_start"] = setup.warm_start_files.empty() ? Json()
                                                   : Json({{"file", setup.warm_start_files.front()},
                                                           {"files", setup.warm_start_files},
                                                           {"configurations", setup.warm_start_configurations},
                                                           {"failed", setup.warm_start_failed}});
  j["budget"] = result.budget;
  j["budget_seconds"] = setup.budget_seconds ? Json(round6(*setup.budget_seconds)) : Json();
  j["measured"] = Json::object();
  for (const char* phase : {"seed", "explore", "confirm", "guided", "random", "spread"}) j["measured"][phase] = result.measured_in(phase);
  j["measured"]["total"] = total;
  j["measured"]["fraction_of_space"] = round6(static_cast<double>(total) / static_cast<double>(result.space_size));
  j["measured"]["from_cache"] = totals.cached;
  j["measured"]["remeasurements"] = totals.remeasurements;
  j["measured"]["seconds"] = round6(totals.seconds);
  j["measured"]["remeasurement_seconds"] = round6(totals.remeasurement_seconds);
  Json failures = Json::object();
  for (const auto& [kind, count] : result.failures()) failures[std::string(autotune::failure_name(kind))] = count;
  j["failures"] = failures;
  j["model"] = model_json(space, result);
  Json curve = Json::array();
  for (const auto& point : result.curve) {
    curve.push_back({{"measured", point.measured},
                     {"best_value", point.best ? Json(round6(point.best_value)) : Json()},
                     {"phase", point.best ? Json(point.phase) : Json()},
                     {"seconds", round6(point.seconds)}});
  }
  j["curve"] = curve;
  if (result.best) {
    const auto* m = measured(result, *result.best);
    Json remeasured = Json::array();
    for (double v : remeasured_values(result, *result.best)) remeasured.push_back(round6(v));
    j["best"] = {{"configuration", space.to_json(*result.best)},
                 {"value", round6(result.best_value)},
                 {"first_value", round6(m->measurement.value)},
                 {"cv", round6(m->measurement.cv)},
                 {"samples", m->measurement.samples},
                 {"stable", m->measurement.stable},
                 {"remeasured", remeasured},
                 {"command", best_command}};
  } else {
    j["best"] = nullptr;
  }
  Json top = Json::array();
  for (size_t i = 0; i < result.top.size(); ++i) {
    const size_t c = result.top[i];
    const auto* m = measured(result, c);
    top.push_back({{"rank", i + 1},
                   {"configuration", space.to_json(c)},
                   {"value", round6(result.final_value.at(c))},
                   {"cv", round6(m->measurement.cv)},
                   {"phase", m->phase}});
  }
  j["top"] = top;
  Json warnings = Json::array();
  for (const auto& w : result.warnings) warnings.push_back(w);
  for (const auto& w : setup.warnings) warnings.push_back(w);
  j["warnings"] = warnings;
  j["interrupted"] = result.interrupted;
  j["cache"] = setup.cache_file.empty() ? Json() : Json(setup.cache_file);
  return j;
}

std::string autotune_text(const autotune::SearchSpace& space, const autotune::TuneResult& result, const AutotuneSetup& setup,
                          const std::vector<std::string>& best_command) {
  std::string out;
  out += fmt::format("Search space: {} configurations ({} combinations, {} removed by constraints)\n", result.space_size,
                     result.combinations, result.rejected);
  if (!setup.kernel.empty()) {
    out += fmt::format("Kernel measured: {} (the dominant one where it was first measured; --kernel names another)\n", setup.kernel);
  }
  const auto totals = measured_totals(result);
  const bool several_at_a_time = result.strategy == autotune::Strategy::bayes && result.batch > 1;
  out += fmt::format("Measured: {} of {} ({:.1f} %, budget {}{}), {} strategy{}: {}; {} from the cache; {} re-measurements; "
                     "{:.1f} s measuring, {:.1f} s re-measuring\n",
                     result.measured.size(), result.space_size,
                     100.0 * static_cast<double>(result.measured.size()) / static_cast<double>(result.space_size), result.budget,
                     setup.budget_seconds ? fmt::format(" or {:g} s", *setup.budget_seconds) : "", autotune::strategy_name(result.strategy),
                     several_at_a_time ? fmt::format(" ({} at a time)", result.batch) : "", phases_text(result), totals.cached,
                     totals.remeasurements, totals.seconds, totals.remeasurement_seconds);
  if (!setup.warm_start_files.empty()) {
    out += fmt::format("Warm start: {} configurations that succeeded in {}{}\n", setup.warm_start_configurations,
                       fmt::join(setup.warm_start_files, ", "),
                       setup.warm_start_failed ? fmt::format(", {} that failed there left for last", setup.warm_start_failed) : "");
  }
  std::vector<std::string> failed;
  for (const auto& [kind, count] : result.failures()) {
    if (count) failed.push_back(fmt::format("{} {}", count, autotune::failure_name(kind)));
  }
  out += fmt::format("Failures: {}\n", failed.empty() ? "none" : fmt::format("{}", fmt::join(failed, ", ")));
  if (const auto& s = setup.slurm) {
    out += fmt::format("Slurm: job {} on {}: {} steps, {} at once; {} ended by Slurm\n", s->job_id, fmt::join(s->nodes, ", "),
                       s->steps, s->workers, s->steps_lost);
  }
  const auto& fit = result.model;
  const auto& process = result.process;
  if (result.strategy == autotune::Strategy::bayes && result.measured_in("guided") > 0) {
    std::string scales;
    for (size_t i = 0; i < process.length_scales.size() && i < process.features.size(); ++i) {
      scales += fmt::format("{}{} {:.2f}", scales.empty() ? "" : ", ", process.features[i], process.length_scales[i]);
    }
    out += fmt::format("Model: a Gaussian process on {} configurations (length scales {}; noise {:.3g}), each next configuration "
                       "the best's neighbour of lowest lower confidence bound, or anywhere the one of most expected improvement\n",
                       process.observations, scales, process.noise);
    if (result.centre) {
      const auto at = centre_order(result);
      out += fmt::format("Centre of the space: {}, {}\n", configuration_text(space, *result.centre),
                         at ? fmt::format("measured {} of {} ({})", *at + 1, result.measured.size(), result.measured[*at].phase)
                            : std::string("not measured"));
    }
  } else if (result.measured_in("spread")) {
    out += "Model: none (the budget is too small for one: a spread of the space was measured)\n";
  } else if (result.strategy == autotune::Strategy::bayes) {
    out += "Model: none (the search ended with its seeds, before the process guided any)\n";
  } else if (result.strategy != autotune::Strategy::model || result.measured_in("seed") == 0) {
    out += "Model: none (random search)\n";
  } else if (fit.fitted && result.prune_factor_used == 0) {
    out += fmt::format("Model: R² {:.2f}, cross-validated {:.2f} ({} terms, {} configurations) — no better than the mean: nothing "
                       "pruned, {} left in the order it predicts\n",
                       fit.r2, fit.cv_r2, fit.terms, fit.observations, result.survivors);
  } else if (fit.fitted) {
    out += fmt::format("Model: R² {:.2f}, cross-validated {:.2f} ({} terms, {} configurations){}; {} pruned, {} kept at {:.2f}x\n",
                       fit.r2, fit.cv_r2, fit.terms, fit.observations,
                       result.model_trusted ? "" : " — low confidence: widened the prune", result.pruned, result.survivors,
                       result.prune_factor_used);
  } else {
    out += "Model: not fitted (fewer than 3 configurations succeeded); nothing was pruned\n";
  }
  if (result.best) {
    const auto* m = measured(result, *result.best);
    // How its value came to be: one measurement, or the median of it and the rounds that measured it again.
    std::vector<std::string> again;
    for (double v : remeasured_values(result, *result.best)) again.push_back(value_text(v, setup));
    const std::string first = fmt::format("cv {:.1f} %, {} samples", 100 * m->measurement.cv, m->measurement.samples);
    out += fmt::format("Best: {}: {} ({})\n", configuration_text(space, *result.best), value_text(result.best_value, setup),
                       again.empty() ? "measured once: " + first
                                     : fmt::format("the median of {} measurements: {} first, {}; then {}", again.size() + 1,
                                                   value_text(m->measurement.value, setup), first, fmt::join(again, ", ")));
    out += fmt::format("  {}\n", display_command(best_command));
    for (size_t i = 1; i < result.top.size(); ++i) {
      out += fmt::format("  #{} {}: {}\n", i + 1, configuration_text(space, result.top[i]),
                         value_text(result.final_value.at(result.top[i]), setup));
    }
  } else {
    out += "Best: none: every configuration measured failed\n";
  }
  if (const auto& l = result.likeliest_better) {
    out += fmt::format("Left unmeasured: likeliest to beat the best by {:.0f} %: {} (chance {:.0f} % by the process)\n", 100 * l->margin,
                       configuration_text(space, l->configuration), 100 * l->chance);
  }
  return out;
}

}  // namespace rpl::report
