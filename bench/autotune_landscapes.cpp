// rpl-autotune-landscapes [--seeds N] [--budgets 5,10,15|60s,...] [--strategies bayes,model,random] [--noise measured|none] [--workers N [--batch B]]
//                         [--per-seed | --trajectory] [--warm-start PCT|full [--prior NAME=EARLIER ...] [--warm-runs K]]
//                         [--calibration] NAME=SPACE.json:MEASUREMENTS.csv ...
// The tuner's strategies on landscapes measured exhaustively (rocm-perf autotune --csv over every
// configuration), each answered from its table with the noise it was measured with
// (NoisyRecordedEvaluator) or, with --noise none, exactly. For each landscape, strategy and budget
// (a percentage of the space, or a time such as 60s: the seconds each configuration took when its
// table was measured, builds and runs, are what such a budget spends), over seeds 1..N: how many
// seeds report a best whose recorded value is within 3 % of the exhaustive best, and how many
// configurations each measured on average (and the re-measurements of the two best beside them, and
// how many of those measured failed: a landscape's failures, a launch out of resources, cost a
// measurement each). One line per landscape, strategy and budget; with --per-seed, before it a line
// per seed: how far its reported best is from the true best, and how far the closest configuration
// it measured was (a search that found the best but reported another lost it to noise; one that
// never measured it, to the search); with --trajectory, under each seed's line the configurations
// it measured in order, their phase and true distance. With --warm-start PCT (or full), each run
// starts warm (TuneOptions::warm_start) from another landscape of the same space: a bayes run at
// PCT % of it with another seed (or its whole table); which one, --prior TARGET=EARLIER says
// (bench/autotune_warm_start.sh), else each seed takes the next of the others in turn; with
// --warm-runs K, the first K named, in the order named (or the next K of the others), each with a
// seed of its own. With --workers N, N GPUs measure at once (bayes choosing N at a time, or B with
// --batch B), each one configuration after another on the recorded clock (what a time budget buys
// with N). With --calibration, at the end, the bayes runs grouped by the chance their likeliest
// configuration left unmeasured was given to beat the best by 3 % (TuneResult::likeliest_better):
// how many of each group's runs reported one more than 3 % from the best.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rpl/autotune/budget.hpp>
#include <rpl/autotune/recording.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>
#include <rpl/core/error.hpp>

namespace {
using namespace rpl::autotune;

struct Landscape {
  std::string name;
  std::string space_file;
  SearchSpace space;
  std::map<size_t, Measurement> recorded;
  double best = INFINITY;
};

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, by);) out.push_back(item);
  return out;
}

Landscape load(const std::string& argument) {
  const auto equals = argument.find('='), colon = argument.find(':', equals);
  if (equals == std::string::npos || colon == std::string::npos) rpl::fail(rpl::Errc::bad_input, "'{}': give NAME=SPACE.json:MEASUREMENTS.csv", argument);
  const std::string space_file = argument.substr(equals + 1, colon - equals - 1);
  Landscape l{argument.substr(0, equals), space_file, load_search_space(space_file), {}, INFINITY};
  size_t unknown = 0;
  l.recorded = read_measurements_csv(argument.substr(colon + 1), l.space, unknown);
  for (const auto& [c, m] : l.recorded) {
    if (m.ok()) l.best = std::min(l.best, m.value);
  }
  if (!std::isfinite(l.best)) rpl::fail(rpl::Errc::bad_input, "{}: no configuration succeeded", argument);
  return l;
}

// Adds an earlier run of the landscape to a warm start (add_earlier_run): a bayes run at `warm`
// percent with this seed, or ("full") the table.
void add_earlier(const Landscape& earlier, const std::string& warm, uint64_t seed, TuneOptions& into) {
  std::vector<std::pair<size_t, double>> costs;
  std::vector<size_t> failed;
  if (warm == "full") {
    for (const auto& [c, m] : earlier.recorded) {
      if (m.ok()) costs.emplace_back(c, m.value);
      else failed.push_back(c);
    }
  } else {
    NoisyRecordedEvaluator evaluator(earlier.recorded, seed);
    NullStore store;
    TuneOptions options;
    options.seed = seed;
    options.budget = static_cast<size_t>(std::ceil(std::atof(warm.c_str()) / 100 * static_cast<double>(earlier.space.size())));
    for (const auto& m : tune(earlier.space, evaluator, store, options).measured) {
      if (m.measurement.ok()) costs.emplace_back(m.configuration, m.measurement.value);
      else failed.push_back(m.configuration);
    }
  }
  std::sort(costs.begin(), costs.end(), [](const auto& a, const auto& b) { return std::tie(a.second, a.first) < std::tie(b.second, b.first); });
  add_earlier_run(into, costs, failed);
}

}  // namespace

int main(int argc, char** argv) {
  int seeds = 20;
  std::vector<std::string> budgets = {"5", "10", "15"}, strategies = {"bayes", "model", "random"};
  bool noise = true, per_seed = false, trajectory = false, calibration = false;
  std::vector<std::pair<double, bool>> chances;  // per bayes run with something left: the chance, and whether it missed
  std::vector<std::string> landscapes, priors;
  std::string warm;  // none, "full" or a percentage
  size_t warm_runs = 1;
  int workers = 1;  // GPUs measuring at once (bayes choosing as many at a time), on the recorded clock
  int batch = 0;    // bayes: configurations chosen at a time, where not as many as the workers
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seeds" && i + 1 < argc) seeds = std::atoi(argv[++i]);
    else if (a == "--budgets" && i + 1 < argc) budgets = split(argv[++i], ',');
    else if (a == "--strategies" && i + 1 < argc) strategies = split(argv[++i], ',');
    else if (a == "--noise" && i + 1 < argc) noise = std::string(argv[++i]) != "none";
    else if (a == "--warm-start" && i + 1 < argc) warm = argv[++i];
    else if (a == "--prior" && i + 1 < argc) priors.push_back(argv[++i]);
    else if (a == "--warm-runs" && i + 1 < argc) warm_runs = static_cast<size_t>(std::max(1, std::atoi(argv[++i])));
    else if (a == "--workers" && i + 1 < argc) workers = std::max(1, std::atoi(argv[++i]));
    else if (a == "--batch" && i + 1 < argc) batch = std::max(1, std::atoi(argv[++i]));
    else if (a == "--per-seed") per_seed = true;
    else if (a == "--trajectory") per_seed = trajectory = true;
    else if (a == "--calibration") calibration = true;
    else landscapes.push_back(a);
  }
  if (landscapes.empty() || seeds < 1) {
    std::fprintf(stderr, "usage: %s [--seeds N] [--budgets 5,10,15|60s,...] [--strategies bayes,model,random] [--noise measured|none] "
                         "[--workers N [--batch B]] "
                         "[--per-seed | --trajectory] [--warm-start PCT|full [--prior NAME=EARLIER ...] [--warm-runs K]] [--calibration] "
                         "NAME=SPACE.json:MEASUREMENTS.csv ...\n", argv[0]);
    return 2;
  }
  try {
    std::printf("landscape   size  strategy  budget   configurations  within 3 %% of the best  mean distance  re-measurements  failed\n");
    std::vector<Landscape> all;
    for (const auto& argument : landscapes) all.push_back(load(argument));
    for (size_t li = 0; li < all.size(); ++li) {
      const auto& l = all[li];
      // The landscapes a warm start may come from: those --prior names for this one, in the order
      // named, else every other of its space.
      std::vector<size_t> earlier;
      for (const auto& prior : priors) {
        for (size_t o = 0; o < all.size(); ++o) {
          if (o != li && all[o].space_file == l.space_file && prior == l.name + "=" + all[o].name) earlier.push_back(o);
        }
      }
      for (size_t o = 0; o < all.size() && priors.empty(); ++o) {
        if (o != li && all[o].space_file == l.space_file) earlier.push_back(o);
      }
      for (const auto& budget_text : budgets) {
        const bool timed = !budget_text.empty() && std::isalpha(static_cast<unsigned char>(budget_text.back()));
        const double pct = std::atof(budget_text.c_str());
        const auto budget = static_cast<size_t>(std::ceil(pct / 100 * static_cast<double>(l.space.size())));
        const std::string budget_column = timed ? fmt::format("{:>7}", budget_text) : fmt::format("{:5.0f} %", pct);
        for (const auto& name : strategies) {
          const auto strategy = strategy_from_name(name);
          if (!strategy) rpl::fail(rpl::Errc::bad_input, "unknown strategy '{}'", name);
          int within = 0;
          double measured = 0, remeasured = 0, distance = 0, failed = 0;
          for (int s = 1; s <= seeds; ++s) {
            NoisyRecordedEvaluator noisy(l.recorded, static_cast<uint64_t>(s));
            RecordedEvaluator exact(l.recorded);
            NullStore store;
            TuneOptions options;
            options.strategy = *strategy;
            options.seed = static_cast<uint64_t>(s);
            options.workers = workers;
            options.batch = static_cast<size_t>(batch ? batch : workers);
            if (timed) apply_budget(budget_text, options);
            else options.budget = budget;
            if (!warm.empty() && !earlier.empty()) {
              const size_t first = priors.empty() ? static_cast<size_t>(s) + li : 0;  // named: the first named first
              for (size_t k = 0; k < std::min(warm_runs, earlier.size()); ++k) {
                add_earlier(all[earlier[(first + k) % earlier.size()]], warm, static_cast<uint64_t>(s) + 1000 + k, options);
              }
            }
            const auto r = tune(l.space, noise ? static_cast<Evaluator&>(noisy) : exact, store, options);
            // Judged by the recorded (true) figure of what it reports, not by its own noisy one.
            const double found = r.best ? l.recorded.at(*r.best).value : INFINITY;
            const double d = 100 * (found / l.best - 1);
            within += d <= 3 ? 1 : 0;
            distance += std::isfinite(d) ? d : 100;
            measured += static_cast<double>(r.measured.size());
            if (r.likeliest_better) chances.emplace_back(r.likeliest_better->chance, d > 3);
            for (const auto& m : r.measured) failed += m.measurement.ok() ? 0 : 1;
            if (per_seed) {
              double closest = INFINITY;
              for (const auto& m : r.measured) {
                if (l.recorded.at(m.configuration).ok()) closest = std::min(closest, l.recorded.at(m.configuration).value);
              }
              std::printf("  seed %3d: reported %6.2f %% from the best, closest measured %6.2f %%\n", s, d, 100 * (closest / l.best - 1));
              if (trajectory) {
                for (const auto& m : r.measured) {
                  std::string values;
                  for (size_t p = 0; p < l.space.parameters.size(); ++p) values.append(p ? "," : "").append(*l.space.text(m.configuration, l.space.parameters[p].name));
                  const auto& truth = l.recorded.at(m.configuration);
                  if (truth.ok()) std::printf("      %-7s %-24s %8.2f %%\n", m.phase.c_str(), values.c_str(), 100 * (truth.value / l.best - 1));
                  else std::printf("      %-7s %-24s   failed\n", m.phase.c_str(), values.c_str());
                }
              }
            }
            for (const auto& rm : r.remeasured) remeasured += static_cast<double>(rm.rounds.size());
          }
          std::printf("%-10s %5zu  %-8s %s  %14.1f  %12d / %-9d  %10.2f %%  %15.1f  %6.1f\n", l.name.c_str(), l.space.size(),
                      name.c_str(), budget_column.c_str(), measured / seeds, within, seeds, distance / seeds, remeasured / seeds, failed / seeds);
        }
      }
    }
    if (calibration) {
      std::printf("\nchance to beat the best by 3 %%   runs   reported one more than 3 %% from the best\n");
      const double bounds[] = {0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0001};
      for (size_t b = 0; b + 1 < std::size(bounds); ++b) {
        size_t runs = 0, missed = 0;
        for (const auto& [chance, miss] : chances) {
          if (chance >= bounds[b] && chance < bounds[b + 1]) ++runs, missed += miss;
        }
        std::printf("  %4.0f %% to %3.0f %%               %6zu   %6zu (%.1f %%)\n", 100 * bounds[b], std::min(100.0, 100 * bounds[b + 1]), runs, missed,
                    runs ? 100.0 * static_cast<double>(missed) / static_cast<double>(runs) : 0.0);
      }
    }
    return 0;
  } catch (const rpl::Error& e) {
    std::fprintf(stderr, "rpl-autotune-landscapes: %s\n", e.what());
    return 2;
  }
}
