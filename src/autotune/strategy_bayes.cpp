// The bayes strategy: a spread of seeds, as few as the Gaussian process needs, then a local search
// under the process (each next configuration a neighbour of the best measured, a restart at the
// centre, or the one of most expected improvement anywhere: run_bayes says when). A configuration
// that failed (a build, a launch, out of resources) enters the process as 1.5 times the worst cost
// measured: its neighbourhood then looks unpromising rather than unknown, and is not tried blindly.
// (Twice made a wall of the failures that hid the best beside them: the largest tile that still
// fits is often the fastest.) A warm start, earlier runs of the space, gives the first seed and
// the process's prior, and what failed there is proposed last.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "failure_wall.hpp"
#include "search.hpp"
#include "values_near.hpp"

namespace rpl::autotune {
namespace {

// Spaces larger than this are searched through this many configurations of the seeded order (and
// every one measured): a prediction costs a triangular solve.
constexpr size_t kCandidates = 20000;
// The process is fitted to at most this many observations, the best half of them and a seeded
// sample of the rest: a fit costs their number cubed.
constexpr size_t kMaxObservations = 256;
// The best measured configurations whose neighbours local search tries, best first (where the
// best's are all measured, the next best's). When chosen (2026-11-26, before the centre and the
// lower bound), on the three landscapes of 648 configurations in bench/ then, 8 found one within
// 3 % at 5 % 85, 96 and 85 times in 100, 1 (the best's alone, then anywhere) 77, 99 and 68; on the
// seven smaller ones the same within a seed at 5 and 10 %, but sgemm_tall at 15 % 80 times, 97
// with one. Four or sixteen, tried again on 34 landscapes (2026-11-27 d), were no better.
constexpr size_t kAnchors = 8;
// Local search picks the neighbour of lowest predicted log cost less this many standard
// deviations. Over 100 seeds at 5, 10 and 15 % of the 43 landscapes of bench/, 2 found one within
// 3 % of the best 10883 times of 12900, 1, 1.5, 2.5 and 3 10781 to 10858, expected improvement
// (until 2026-11-27 e) 10801; on seven sealed until then, 1723 of 2100 (expected improvement 1717).
constexpr double kLocalConfidence = 2;
// A pattern move, as in Hooke and Jeeves's pattern search (1961): where the last measurement was a
// guided step of one parameter that made the best at least kPatternGain faster than the best before
// it, the same step again from it is the next pick. The process, fitted to a few points, rates a
// step of a parameter that matters little about as high as one of a parameter that matters much:
// from the stencil's corner of one row per thread the climb spent its picks on BX and BY between
// steps of ROWS. Only along a parameter of kPatternValues values or more: along one of three, the
// step again is the far end, and taking it first lost on the SGEMMs and the Triton matmuls. Over 20
// seeds at 5, 10 and 15 % of the 98 landscapes of bench/, 4,870 runs of 5,880 found one within 3 % of
// the best (4,843 without; at gains of 0, 3, 5 and 15 %, 4,790, 4,857, 4,873 and 4,860; along any
// parameter, 4,877, but 1,906 of 1,960 at 30 % where it was 1,918, now 1,920); over 100 seeds,
// 24,532 of 29,400 (24,406), `stencil_1792` at 10 % 100 of 100 (76), `stencil_large` at 5 % 81 (91).
// On two stencils sealed until then, 493 of 600 (460; stencil_1600 at 10 %, 100 of 100, was 76).
constexpr double kPatternGain = 0.10;
constexpr size_t kPatternValues = 4;
// The margin the search's last word is about (LikeliestBetter): the benchmark's "within 3 % of the
// best" (bench/autotune_landscapes.sh).
constexpr double kBetterMargin = 0.03;
// From this chance on, a warning: runs that gave it had missed the best by more than 3 % 31 times in
// 100 (bench/data/autotune_chance_calibration.txt), under it 19 in 100 at most.
constexpr double kWarnedChance = 0.5;
// Random designs a spread is chosen from (enough that more hardly move its closest pair), fewer
// where a design is large, so that about kDesignDistances distances are computed at most.
constexpr size_t kDesigns = 10000;
constexpr size_t kDesignDistances = 4000000;

// Keeps the best half of kMaxObservations and fills the rest from the others in a fixed order.
void thin(std::vector<size_t>& configs, std::vector<double>& costs, const std::vector<size_t>& order) {
  if (configs.size() <= kMaxObservations) return;
  std::vector<size_t> index(configs.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(), [&](size_t a, size_t b) { return costs[a] < costs[b]; });
  std::vector<size_t> rank(order.size());  // a configuration's place in the seeded order
  for (size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  std::stable_sort(index.begin() + kMaxObservations / 2, index.end(), [&](size_t a, size_t b) { return rank[configs[a]] < rank[configs[b]]; });
  index.resize(kMaxObservations);
  std::vector<size_t> c;
  std::vector<double> v;
  for (size_t i : index) c.push_back(configs[i]), v.push_back(costs[i]);
  configs = std::move(c);
  costs = std::move(v);
}

// The prior mean a warm start gives the process: a process fitted to the earlier runs' costs (each
// relative to its run's best, add_earlier_run; their best half and a sample of the rest, as thin
// keeps) predicts each configuration's log cost, less the mean of those predictions. Empty where
// fewer than two succeeded or the fit failed.
std::unordered_map<size_t, double> earlier_log_costs(const SearchSpace& space, const std::vector<std::pair<size_t, double>>& earlier,
                                                     std::vector<size_t> configurations, const std::vector<MeasuredConfiguration>& measured,
                                                     const std::vector<size_t>& order) {
  std::unordered_map<size_t, double> out;
  std::vector<size_t> configs;
  std::vector<double> costs;
  for (const auto& [c, cost] : earlier) configs.push_back(c), costs.push_back(cost);
  thin(configs, costs, order);
  GaussianProcess process(space);
  if (configs.size() < 2 || !process.fit(configs, costs).fitted) return out;
  for (const auto& m : measured) configurations.push_back(m.configuration);
  const auto predicted = process.predict(configurations);
  double mean = 0;
  for (const auto& p : predicted) mean += p.mean / static_cast<double>(predicted.size());
  for (size_t i = 0; i < configurations.size(); ++i) out[configurations[i]] = predicted[i].mean - mean;
  return out;
}

}  // namespace

std::vector<bool> Search::nearest_measured_failed(const std::vector<size_t>& candidates, const GaussianProcess& cube) const {
  std::vector<bool> out(candidates.size(), false);
  if (failed().empty()) return out;
  for (size_t i = 0; i < candidates.size(); ++i) {
    double nearest = std::numeric_limits<double>::infinity();
    for (const auto& m : result_.measured) {
      const double d = cube.distance2(candidates[i], m.configuration);
      if (d < nearest) nearest = d, out[i] = !m.measurement.ok();
    }
  }
  return out;
}

std::vector<bool> Search::failed_before(const std::vector<size_t>& candidates) const {
  std::vector<bool> out(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) out[i] = failed_before_[candidates[i]];
  return out;
}

void Search::drop_failed_before(std::vector<size_t>& candidates, size_t enough) const {
  const auto others = std::count_if(candidates.begin(), candidates.end(), [&](size_t c) { return !failed_before_[c]; });
  if (static_cast<size_t>(others) >= enough) std::erase_if(candidates, [&](size_t c) { return failed_before_[c]; });
}

std::vector<size_t> Search::candidates() const {
  std::vector<size_t> out;
  for (size_t c : order_) {
    if (out.size() >= kCandidates) break;
    if (!measured_[c]) out.push_back(c);
  }
  return out;
}

std::vector<size_t> Search::spread(size_t count, const GaussianProcess& cube) const {
  auto candidates = this->candidates();
  drop_failed_before(candidates, count);
  if (count == 0 || count >= candidates.size()) return std::vector<size_t>(candidates.begin(), candidates.begin() + std::min(count, candidates.size()));
  std::vector<size_t> measured;
  for (const auto& m : result_.measured) measured.push_back(m.configuration);
  // A maximin design: of kDesigns seeded random sets of count configurations, the one whose
  // closest two (among themselves and those measured already) are farthest apart. Growing a set
  // greedily from a random start instead lets the start, often a poor one, into every design.
  std::mt19937_64 rng(options_.seed ^ (0x9e3779b97f4a7c15ULL * (done() + 1)));
  const size_t designs = std::clamp<size_t>(kDesignDistances / (count * (count + measured.size())), 1, kDesigns);
  std::vector<size_t> best, set;
  double best_closest = -1;
  for (size_t d = 0; d < designs; ++d) {
    set.clear();
    double closest = std::numeric_limits<double>::infinity();
    while (set.size() < count) {
      const size_t c = candidates[rng() % candidates.size()];
      if (std::find(set.begin(), set.end(), c) != set.end()) continue;
      for (size_t other : set) closest = std::min(closest, cube.distance2(c, other));
      for (size_t other : measured) closest = std::min(closest, cube.distance2(c, other));
      set.push_back(c);
    }
    if (closest > best_closest) best_closest = closest, best = set;
  }
  return best;
}

void Search::run_bayes() {
  const size_t parameters = space_.parameters.size();
  // An eighth of the planned budget as seeds, the budget counted up to 5 % of the space, at least
  // two (the fewest the process is fitted from): the maximin design, near-opposite corners where
  // there are two. Every seed more is one pick fewer for expected improvement, and in a small space
  // two corners are a few steps from every configuration: at 5 and 10 % of the seven landscapes of
  // bench/ of 225 configurations or fewer (23 measured at most), two seeds found one within 3 % of
  // the best more often than three or more (100 seeds each). In the 648 of sgemm_large, corners run
  // 3 to 22 times slower than the best and the climb from the better of two is long: 4 seeds at 5 %
  // (33 measured) found one within 3 % 77 times in 100, two 39 (before kAnchors). Past 5 % of the
  // space the seeds stay as they are and the rest goes to the climb, so that a larger budget
  // measures first what a smaller one did (where the measurements repeat): while the seeds grew
  // with the budget (until 2026-11-29), at 15 % of the 225 four corners and the centre led the
  // climb into the centre's basin where two corners at 10 % had found the best (sgemm_1536 24 of
  // 100 seeds at 15 %, 92 at 10 %; sgemm_tall_320 13 and 97), and over 100 seeds on the 96
  // landscapes of bench/, 240 runs at 15 % measured nothing as close to the best as the same seed
  // at 10 % (now none). There, 23877 of 28800 runs at 5, 10 and 15 % found one within 3 % (23735).
  const size_t seeds = std::max<size_t>(2, std::min(planned_, space_.size() / 20) / 8);
  GaussianProcess process(space_);
  // From three seeds on (a space of 480 configurations or more and a budget of 24 or more), the
  // configuration nearest the centre of the space is measured with them, as a central composite
  // design adds its centre point to the corners: where the best lies inside the ranges (a small
  // product that a large tile leaves SMs idle in), the climb from the corners is long, and the best
  // measured seed, where local search starts, is then the centre. On the five landscapes of 410
  // and 648 configurations, at 5 % 85, 100, 99, 96 and 80 of 100 seeds found one within 3 % of the
  // best (were 85, 96, 85, 96, 47), sgemm_large_tall at 10 % 100 (was 72); with two seeds the
  // centre measured instead of a corner or with them was worse (sgemm and sgemm_rect at 5 %: 40
  // and 38 of 100 instead of 96 and 93; the Triton matmul at 2048³, 0 instead of 100).
  const bool central = seeds >= 3;
  if (central) {
    result_.centre = process.most_central(candidates());
    measure_batch({*result_.centre}, "seed");
  }
  // A warm start (an earlier run of the space, at another size or on another device): its best
  // configuration is the first seed, the spread one seed fewer, and the process models the log
  // cost less the earlier run's (earlier_log_costs), so that what was fast there is taken for fast
  // here until this run's measurements say otherwise. Over 20 seeds at 5, 10 and 15 % of the 96
  // landscapes of bench/, each started from a bayes run at 15 % of the landscape of its space
  // nearest in size (bench/autotune_warm_start.sh), 5,287 runs of 5,760 found one within 3 % of the
  // best, cold 4,713 (the 10 % target met on 86 landscapes and 77); the earlier best as a seed
  // alone 5,210, the prior alone 5,060, its best two as seeds 5,195, as every seed 5,173. Started
  // from a run on a landscape of the space of any size, 5,045, though some lose much (the Triton
  // matmul at 2048³ at 5 and 10 %: 10 of 20, cold 20; the SGEMM at 2048³ from 1536³ at 5 %, 2 of
  // 20, cold 20). Neither the earlier best beside the whole spread (5,192) nor the prior scaled by
  // the slope of this run's log costs on it (5,259) lost less there: a misleading earlier run costs.
  // Several earlier runs (the nearest sizes first) give a seed each, their bests, up to half the
  // budget: over 20 seeds at 5, 10 and 15 % of the 138 landscapes of bench/, each from runs at 15 %
  // of the 3 nearest (bench/autotune_warm_start_several.sh), 7,962 runs of 8,280 found one within
  // 3 % of the best, from the nearest alone 7,708; with the first run's best alone a seed and the
  // spread the rest, 7,773. The landscapes of a space share their bests
  // (bench/autotune_shared_optima.py).
  const size_t warm = measure_warm_start_bests("seed", std::max(seeds, planned_ / 2));
  result_.seed_count = std::max(seeds, warm) + central;
  measure_batch(spread(seeds - std::min(seeds, warm), process), "seed");
  const auto unmeasured = candidates();
  const auto prior_mean = earlier_log_costs(space_, options_.warm_start, unmeasured, result_.measured, order_);
  auto prior_of = [&](size_t c) {
    const auto it = prior_mean.find(c);
    return it == prior_mean.end() ? 0.0 : it->second;  // a configuration the earlier run says nothing of
  };
  // Where the centre is not a seed, it is one more candidate of the climb from the best seed until
  // it is measured: taken where its lower bound (below) is under that of every neighbour of the
  // best, or where the best has no neighbour left, and the climb goes on from it where it is
  // better. The middle of the ranges, where a small product's best often lies, is then reached as
  // soon as the process, fitted to the climb so far, rates it above the next step. Over 100 seeds
  // at 5, 10 and 15 % of the 62 landscapes of bench/, 15995 found one within 3 % of the best (the
  // centre only at a local optimum: 15598; on the six sealed until then, 1370 of 1800, was 1252),
  // the 10 % target (95 in 100) met on 52 (47). The centre rated at 1.75 or 2.25 standard
  // deviations instead of the neighbours' 2 found 15869 and 15603: at 2.25 it is taken first.
  // The budget's last measurement, after at least one guided pick per parameter, goes to the centre
  // where it is still unmeasured, instead of the climb's next step: a last look inside the ranges,
  // which does not change where the climb went before it. Over 20 seeds at 5, 10 and 15 % of the
  // 100 landscapes of bench/ then, 5,122 runs of 6,000 found one within 3 % of the best (4,963
  // without), the targets at 5 / 10 / 15 % met on 55 / 82 / 92 (39 / 80 / 91); over 100 seeds,
  // 25,872 of 30,000 (25,016). The gain is at 5 % of the SGEMM's 225, where twelve measured do not
  // climb from a corner to a best inside the ranges (`sgemm_704` 100 of 100, was 45); two stencils,
  // whose centre (BX=64 BY=4, two rows a thread) is slow, lost at 10 % (`stencil_2176` 53, was 63),
  // and two SGEMMs whose best has larger tiles at 5 % (`sgemm_8k_flat` 85, was 100). On ten
  // landscapes sealed until then, 2,460 of 3,000 (2,443). With fewer guided picks before it, it
  // took the place of the climb where there is little of it: the Triton matmul at 5 % (three
  // measured), 7 of 20, was 20. A larger budget still measures all that a smaller one did: the
  // same in the same order, and the centre, the smaller one's last, at its own end.
  const bool restart = !central && !unmeasured.empty();
  if (restart) result_.centre = process.most_central(unmeasured);
  // Past 100 measured, a round chooses a fiftieth of those measured, so that a large budget stays
  // affordable in fits (about 100 + 50 ln(budget / 100) rounds) and a round's size does not depend
  // on the budget: a larger budget chooses the same first configurations as a smaller one.
  auto batch_size = [&] { return std::max(result_.batch, done() / 50); };
  // What the process is fitted to: the configurations measured, a failure as 1.5 times the worst
  // cost, thinned, less the warm start's prior. Gives the best cost measured (0 where none succeeded).
  auto modelled = [&](std::vector<size_t>& configs, std::vector<double>& costs, const std::vector<size_t>& failures) {
    observations(configs, costs);
    const double best_cost = costs.empty() ? 0 : *std::min_element(costs.begin(), costs.end());
    if (!costs.empty()) {
      const double failed_cost = 1.5 * *std::max_element(costs.begin(), costs.end());
      for (size_t f : failures) configs.push_back(f), costs.push_back(failed_cost);
    }
    thin(configs, costs, order_);
    for (size_t i = 0; i < configs.size(); ++i) costs[i] *= std::exp(-prior_of(configs[i]));
    return best_cost;
  };
  size_t tuned_at = 0;  // observations when the length scales were last chosen
  while (room()) {
    std::vector<size_t> configs;
    std::vector<double> costs;
    const auto failures = failed();
    const double best_cost = modelled(configs, costs, failures);
    const bool any_success = best_cost > 0;
    const auto candidates = this->candidates();
    if (candidates.empty()) break;
    // The length scales are chosen anew as the observations grow by half; in between they stay.
    if (configs.size() < 12 || 2 * configs.size() >= 3 * tuned_at) {
      result_.process = process.fit(configs, costs);
      tuned_at = configs.size();
    } else {
      result_.process = process.refit(configs, costs);
    }
    if (!any_success || !result_.process.fitted) {  // failures took the seeds: more of the spread
      measure_batch(spread(std::min(batch_size(), result_.budget - done()), process), "seed");
      continue;
    }
    const double best = std::log(best_cost);
    auto predictions = process.predict(candidates);
    for (size_t i = 0; i < candidates.size(); ++i) predictions[i].mean += prior_of(candidates[i]);  // log cost again
    std::vector<double> score(candidates.size()), sd(candidates.size());
    double chance = 0;  // the likeliest's to beat the best by kBetterMargin, for a time budget's round (round_held_back)
    for (size_t i = 0; i < candidates.size(); ++i) {
      score[i] = expected_improvement(predictions[i], best);
      sd[i] = predictions[i].sd;
      chance = std::max(chance, chance_below(predictions[i], best + std::log1p(-kBetterMargin)));
    }
    better_chance_ = chance;
    // What failed in the warm start's run, at another size or on another device, is not proposed
    // while anything else is left: where it ran out of resources there, it does here. (Taken into
    // the prior as slow instead, as this run's failures are, such failures smoothed the prior over
    // the wall beside them, where the best often is: over 100 seeds at 5, 10, 15 and 30 % of
    // triton_wall and triton_wall_2k started from each other at 15 and 30 %, 752 runs found one
    // within 3 % of the best, 774 with neither, 781 left out as here, measuring 0.57 failures a
    // run instead of 0.80.) Then a candidate whose
    // nearest measured configuration failed is taken for failing too, and not proposed while others
    // are left: failures come in regions (too many threads, too much shared memory), and the
    // process, smooth, sees a wall of them as noise beside a good configuration (a wall just past
    // the best was probed four times along one row).
    auto leave_out = [&](const std::vector<bool>& flagged) {
      bool others = false;
      for (size_t i = 0; i < candidates.size(); ++i) others = others || (!flagged[i] && score[i] >= 0);
      for (size_t i = 0; i < candidates.size() && others; ++i) {
        if (flagged[i]) score[i] = -1;
      }
    };
    leave_out(failed_before(candidates));
    leave_out(nearest_measured_failed(candidates, process));
    // Local search first: the neighbour of the best measured whose log cost may be lowest (the
    // predicted mean less kLocalConfidence standard deviations), where one is left (else the next
    // best's). A neighbour is one step of one parameter (up to a fifth of its values where it
    // has many), or a step of two that leaves every derived feature as it was (TM down and TN up:
    // the same THREADS and TILE_OUTPUTS), tried once the single steps are spent; any other step of
    // two parameters, those that keep some derived feature first, once the next best's single
    // steps are spent too (a ridge, below). A smooth process
    // misses a narrow optimum between two measured values (the rows per thread of a stencil best at
    // 4 of 1, 2, 4, 8); the neighbours find it. A pick of most expected improvement anywhere comes
    // only where the best 8 have no neighbour left: one after every three local picks that did not
    // improve on the best (until 2026-11-27) left the climb too soon; measured on 43 landscapes, the
    // 34 it was dropped on and 9 measured before and looked at after (bench/data/README.md). A pick
    // anywhere is the one of most expected improvement, and discounts the candidates it correlates
    // with, so that a batch spreads out; where nothing is expected to improve (a flat fit), the
    // least known comes first.
    // What step() says of a candidate.
    constexpr int kAnywhere = 0, kOneStep = 1, kKeepsDerived = 2, kKeepsSomeDerived = 3, kTwoSteps = 4;
    auto index = [&](size_t c, size_t p) { return static_cast<long>(space_.value_index(c, p)); };
    auto reach = [&](size_t p) { return step_reach(space_, p); };
    auto step = [&](size_t c, size_t anchor) {  // what c is to anchor
      int steps = 0;
      for (size_t p = 0; p < parameters; ++p) {
        const long d = index(c, p) - index(anchor, p);
        if (d < -reach(p) || d > reach(p)) return kAnywhere;
        steps += d != 0;
      }
      if (steps == 1) return kOneStep;
      if (steps != 2) return kAnywhere;
      size_t kept = 0;
      for (size_t d = 0; d < space_.derived.size(); ++d) kept += space_.derived_value(c, d) == space_.derived_value(anchor, d);
      if (kept == 0) return kTwoSteps;
      return kept == space_.derived.size() ? kKeepsDerived : kKeepsSomeDerived;
    };
    // A single step that passes a failure on its row or the row beside is taken for failing too
    // (steps_past_a_failure). Local search alone probed such a wall row by row (48 guided picks of
    // 260 failed in the unit test's bowl, 21 with this). Until 2026-11-28 e, a failure a step off in
    // every other parameter counted too: on the Triton matmul's measured walls (triton_wall and
    // triton_wall_2k in bench/), at 30 % of the space, that found the best 26 and 39 times in 100
    // seeds, the row and the row beside 40 and 55 (at 5 to 15 %, the same within one seed).
    // The best measured configurations, best first: where the best's neighbours are all measured,
    // the next best's are tried before anything farther.
    std::vector<std::pair<double, size_t>> ranked;  // cost, configuration
    for (const auto& m : result_.measured) {
      if (m.measurement.ok()) ranked.emplace_back(cost(m.measurement), m.configuration);
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<size_t> anchors;
    for (size_t i = 0; i < ranked.size() && i < kAnchors; ++i) anchors.push_back(ranked[i].second);
    // The pattern move's pick (kPatternGain), where the last measurement calls for one: it is the
    // best, and the second best was the best before it.
    auto pattern_move = [&]() -> std::optional<size_t> {
      const auto& last = result_.measured.back();
      if (last.phase != "guided" || !last.measurement.ok() || last.configuration != anchors.front() || ranked.size() < 2) return std::nullopt;
      const auto [before_cost, before] = ranked[1];
      if (ranked[0].first >= before_cost * (1 - kPatternGain)) return std::nullopt;
      std::vector<size_t> stepped;
      for (size_t p = 0; p < parameters; ++p) {
        if (index(last.configuration, p) != index(before, p)) stepped.push_back(p);
      }
      if (stepped.size() != 1 || space_.parameters[stepped[0]].values.size() < kPatternValues) return std::nullopt;
      const size_t p = stepped[0];
      const long next = 2 * index(last.configuration, p) - index(before, p);
      for (size_t i = 0; i < candidates.size(); ++i) {
        bool again = index(candidates[i], p) == next;
        for (size_t q = 0; q < parameters && again; ++q) again = q == p || index(candidates[i], q) == index(last.configuration, q);
        if (again && score[i] >= 0 && !steps_past_a_failure(space_, candidates[i], last.configuration, failures)) return i;
      }
      return std::nullopt;
    };
    const auto pattern = pattern_move();
    // The centre's place among the candidates, or past them where it is measured or a seed.
    const auto centre_at = restart && !measured_[*result_.centre]
                               ? static_cast<size_t>(std::find(candidates.begin(), candidates.end(), *result_.centre) - candidates.begin())
                               : candidates.size();
    auto lower_bound = [&](size_t i) { return predictions[i].mean - kLocalConfidence * predictions[i].sd; };
    // Among an anchor's single steps, one that brings a value measured nowhere near the anchor
    // comes first, then the lowest bound (ValuesNear). Where a step crosses two values of a
    // parameter of ten (the stencil's 410: BX and rows per thread), every value a step reaches
    // around the anchor is then measured, the nearer as well as the farther, before the bound
    // orders the rest (one value on each side instead lost: docs/autotune_strategies.md). Over 100
    // seeds at 5, 10 and 15 % of thirteen stencils of 410 measured on an H100 and H200, 3,700 runs
    // of 3,900 found one within 3 % of the best, 3,550 without the rule; on three sealed until it
    // was chosen, 892 of 900 (829).
    // A value counts as measured only near the anchor: one seen at a far corner tells little of it
    // there (counted anywhere, stencil_large_2304 at 10 % found its best in 74 of 100, was 100).
    // Steps of two parameters keep their order by the bound alone: a new value there steps past a
    // wall of failures that single steps are kept from (failure_wall.hpp).
    std::vector<size_t> measured;
    for (const auto& m : result_.measured) measured.push_back(m.configuration);
    const bool centre_last = centre_at < candidates.size() && result_.measured_in("guided") >= parameters;
    std::vector<size_t> batch;
    const size_t round = batch_size();
    while (batch.size() < round && batch.size() + done() < result_.budget) {
      std::optional<size_t> pick;
      auto best_of = [&](int pass, size_t anchor) {
        const auto near = pass == kOneStep ? std::optional<ValuesNear>(std::in_place, space_, anchor, measured) : std::nullopt;
        auto local_order = [&](size_t i) { return std::pair(near && !near->brings_new(candidates[i]), lower_bound(i)); };
        for (size_t i = 0; i < candidates.size(); ++i) {
          if (score[i] < 0 || (pass != kAnywhere && step(candidates[i], anchor) != pass)) continue;  // taken, or not this kind of step
          if (pass == kOneStep && steps_past_a_failure(space_, candidates[i], anchor, failures)) continue;
          if (pass != kAnywhere) {
            if (!pick || local_order(i) < local_order(*pick)) pick = i;
            continue;
          }
          if (!pick || score[i] > score[*pick] || (score[i] == score[*pick] && score[i] <= 0 && sd[i] > sd[*pick])) pick = i;
        }
      };
      if (batch.empty()) pick = pattern;
      if (!pick && centre_last && batch.size() + done() + 1 == result_.budget && score[centre_at] >= 0) pick = centre_at;
      for (size_t a = 0; a < anchors.size() && !pick; ++a) {
        best_of(kOneStep, anchors[a]);
        if (!pick) best_of(kKeepsDerived, anchors[a]);
        // A ridge: where two parameters trade off, no single step from the best gains and a step of
        // both does (the stencil at 2048² best with 1024 threads and 16 rows, 12 or 24 rows 28-32 %
        // slower there; the SGEMM's BM and TM up together, the same THREADS). Those steps come after
        // the next best's single steps: right after the best's own, where the best was a lone local
        // optimum they took the budget from the next best's climb (sgemm_large_tall at 5 %, 8 of 20
        // seeds, was 20). Over 100 seeds at 5, 10 and 15 % of the 116 landscapes of bench/, 30,006
        // runs of 34,800 found one within 3 % of the best (29,885 without: stencil_large_2k at 10 %
        // 96 of 100, was 61; sgemm_large_1536 at 5 % 69, was 8); on twelve unseen until then, 2,796
        // of 3,600 (2,794).
        if (!pick && a > 0) best_of(kKeepsSomeDerived, anchors[a - 1]);
        if (!pick && a > 0) best_of(kTwoSteps, anchors[a - 1]);
        if (a == 0 && centre_at < candidates.size() && score[centre_at] >= 0 && (!pick || lower_bound(centre_at) < lower_bound(*pick))) pick = centre_at;
      }
      if (!pick) best_of(kAnywhere, 0);
      if (!pick) break;
      batch.push_back(candidates[*pick]);
      score[*pick] = -1;
      for (size_t i = 0; i < candidates.size(); ++i) {
        if (score[i] > 0) score[i] *= 1 - process.correlation(candidates[i], candidates[*pick]);
      }
    }
    if (batch.empty()) break;
    measure_batch(batch, "guided");
  }
  // The search's last word, where something is left: the process fitted to every measurement
  // rates each configuration left; the likeliest to beat the best by kBetterMargin is the one to
  // measure before trusting the best. Over 20 seeds at 5, 10, 15 and 30 % of the 138 landscapes of
  // bench/, runs whose likeliest chance was under 1 % missed the best by more than 3 % none of 546
  // times, from 50 % on 31 times in 100 (bench/data/autotune_chance_calibration.txt).
  std::vector<size_t> configs;
  std::vector<double> costs;
  const double best_cost = modelled(configs, costs, failed());
  auto left = candidates();
  drop_failed_before(left, 1);
  if (result_.interrupted || best_cost <= 0 || left.empty() || !(result_.process = process.fit(configs, costs)).fitted) return;
  const double target = std::log(best_cost * (1 - kBetterMargin));
  const auto predictions = process.predict(left);
  for (size_t i = 0; i < left.size(); ++i) {
    const double chance = chance_below({predictions[i].mean + prior_of(left[i]), predictions[i].sd}, target);
    if (!result_.likeliest_better || chance > result_.likeliest_better->chance) result_.likeliest_better = {left[i], chance, kBetterMargin};
  }
  if (result_.likeliest_better->chance >= kWarnedChance) {
    result_.warnings.push_back(fmt::format("likely_better_unmeasured: the process gives a configuration left unmeasured a chance of {:.2f} to "
                                           "beat the best by {:.0f} % (model.likeliest_better), where runs missed the best 31 times in "
                                           "100 on the benchmark's landscapes: raise --budget, or measure it",
                                           result_.likeliest_better->chance, 100 * kBetterMargin));
  }
}

}  // namespace rpl::autotune
