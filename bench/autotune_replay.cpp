// rpl-autotune-replay SPACE.json MEASUREMENTS.csv [SEEDS] [BUDGET_FRACTION] [SEED_FRACTION]
// Replays an exhaustive measurement of a space (rocm-perf autotune --csv with --seed-fraction 1)
// to compare, over SEEDS seeds (default 20), this tuner with random search and with the seeds'
// algorithm (a 20 % random seed, the model, a prune at 1.75x of predicted time, survivors in
// predicted order), all given the same budget. Prints one line per seed and per strategy:
// configurations measured and the distance of its best from the exhaustive best.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

#include <rpl/autotune/model.hpp>
#include <rpl/autotune/recording.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>
#include <rpl/core/error.hpp>

namespace {
using namespace rpl::autotune;

std::vector<size_t> permutation(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

struct Outcome {
  size_t measured = 0;
  double best = 0;  // recorded value of the chosen configuration
};

double value_of(const std::map<size_t, Measurement>& rec, size_t c) {
  auto it = rec.find(c);
  return it != rec.end() && it->second.ok() ? it->second.value : INFINITY;
}

Outcome random_search(const std::map<size_t, Measurement>& rec, size_t n, size_t budget, uint64_t seed) {
  Outcome o{budget, INFINITY};
  const auto order = permutation(n, seed);
  for (size_t i = 0; i < budget; ++i) o.best = std::min(o.best, value_of(rec, order[i]));
  return o;
}

Outcome seeds_algorithm(const SearchSpace& space, const std::map<size_t, Measurement>& rec, size_t budget, uint64_t seed) {
  const size_t n = space.size();
  const size_t seeds = std::min(budget, std::max<size_t>(10, static_cast<size_t>(std::ceil(0.2 * static_cast<double>(n)))));
  const auto order = permutation(n, seed);
  std::vector<bool> measured(n, false);
  Outcome o{0, INFINITY};
  std::vector<size_t> configs;
  std::vector<double> costs;
  for (size_t i = 0; i < seeds; ++i) {
    measured[order[i]] = true;
    ++o.measured;
    const double v = value_of(rec, order[i]);
    o.best = std::min(o.best, v);
    if (std::isfinite(v)) {
      configs.push_back(order[i]);
      costs.push_back(v);
    }
  }
  QuadraticModel model(space);
  if (!model.fit(configs, costs).fitted) return o;
  std::vector<std::pair<double, size_t>> ranked;
  for (size_t c = 0; c < n; ++c) {
    if (!measured[c] && model.predict(c) <= 1.75 * o.best) ranked.emplace_back(model.predict(c), c);
  }
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < ranked.size() && o.measured < budget; ++i, ++o.measured) o.best = std::min(o.best, value_of(rec, ranked[i].second));
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SPACE.json MEASUREMENTS.csv [SEEDS] [BUDGET_FRACTION] [SEED_FRACTION]\n", argv[0]);
    return 2;
  }
  try {
    const auto space = load_search_space(argv[1]);
    size_t unknown = 0;
    const auto rec = read_measurements_csv(argv[2], space, unknown);
    const int seeds = argc > 3 ? std::atoi(argv[3]) : 20;
    const double fraction = argc > 4 ? std::atof(argv[4]) : 0.2;
    const double seed_fraction = argc > 5 ? std::atof(argv[5]) : TuneOptions{}.seed_fraction;
    double exhaustive = INFINITY;
    for (const auto& [c, m] : rec) {
      if (m.ok()) exhaustive = std::min(exhaustive, m.value);
    }
    std::printf("space %zu configurations, %zu recorded, exhaustive best %.6g; budget %.0f %%\n", space.size(), rec.size(),
                exhaustive, 100 * fraction);
    std::printf("seed  ours: measured distance    random: measured distance    seeds' algorithm: measured distance\n");
    int ours_within = 0, random_within = 0, seeds_within = 0;
    double ours_measured = 0;
    for (int s = 1; s <= seeds; ++s) {
      RecordedEvaluator eval(rec);
      NullStore store;
      TuneOptions options;
      options.seed = static_cast<uint64_t>(s);
      options.budget_fraction = fraction;
      options.seed_fraction = seed_fraction;
      const auto r = tune(space, eval, store, options);
      Outcome ours{r.measured.size(), r.best ? value_of(rec, *r.best) : INFINITY};
      const auto rnd = random_search(rec, space.size(), ours.measured, static_cast<uint64_t>(s));
      const auto sa = seeds_algorithm(space, rec, ours.measured, static_cast<uint64_t>(s));
      auto distance = [&](double v) { return 100 * (v / exhaustive - 1); };
      ours_within += distance(ours.best) <= 3 ? 1 : 0;
      random_within += distance(rnd.best) <= 3 ? 1 : 0;
      seeds_within += distance(sa.best) <= 3 ? 1 : 0;
      ours_measured += static_cast<double>(ours.measured);
      std::printf("%4d  %14zu %7.2f %%   %15zu %7.2f %%   %25zu %7.2f %%   (cv R2 %.2f%s)\n", s, ours.measured,
                  distance(ours.best), rnd.measured, distance(rnd.best), sa.measured, distance(sa.best), r.model.cv_r2,
                  r.model_trusted ? "" : ", low confidence");
    }
    std::printf("within 3 %% of the exhaustive best: ours %d/%d, random %d/%d, seeds' algorithm %d/%d; ours measured %.1f %% of "
                "the space on average\n",
                ours_within, seeds, random_within, seeds, seeds_within, seeds,
                100 * ours_measured / seeds / static_cast<double>(space.size()));
    return 0;
  } catch (const rpl::Error& e) {
    std::fprintf(stderr, "rpl-autotune-replay: %s\n", e.what());
    return 2;
  }
}
