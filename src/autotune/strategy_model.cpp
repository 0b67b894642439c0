// The model strategy: a seed sample, a quadratic model of log(cost), a prune to what it predicts
// within prune_factor of the best measured, and the survivors measured in predicted order.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "search.hpp"

namespace rpl::autotune {

size_t Search::model_minimum() const {
  // The Gaussian process guides from two observations; the quadratic model needs one per
  // parameter, an intercept and a residual.
  return options_.strategy == Strategy::bayes ? 2 : space_.parameters.size() + 2;
}

void Search::run_model() {
  const size_t n = space_.size();
  // The seed is the fraction of the space asked for, but at most half the budget: the model
  // always has its share to guide.
  size_t seeds = std::max(options_.seed_floor, static_cast<size_t>(std::ceil(options_.seed_fraction * static_cast<double>(n))));
  seeds = std::min({seeds, std::max(model_minimum(), result_.budget / 2), n});
  result_.seed_count = seeds;
  measure_batch(std::vector<size_t>(order_.begin(), order_.begin() + static_cast<long>(seeds)), "seed");
  size_t random_next = seeds;  // the permutation continues to supply exploration
  QuadraticModel model(space_);
  auto fit = [&] {
    std::vector<size_t> configs;
    std::vector<double> costs;
    observations(configs, costs);
    result_.model = model.fit(configs, costs);
    result_.model_trusted = result_.model.fitted && result_.model.cv_r2 >= options_.min_r2;
  };
  // Unmeasured configurations, best predicted first (ties by index); needs a fitted model.
  auto ranked_unmeasured = [&] {
    std::vector<std::pair<double, size_t>> ranked;
    for (size_t c = 0; c < n; ++c) {
      if (!measured_[c]) ranked.emplace_back(model.predict(c), c);
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<size_t> out;
    for (const auto& [_, c] : ranked) out.push_back(c);
    return out;
  };

  // While the model is weak, measure a further batch (half its best guesses, half random) and
  // refit. Exploration takes at most half of what the budget leaves after seeding: the rest confirms.
  fit();
  const size_t explore_end = done() + (result_.budget - std::min(result_.budget, done())) / 2;
  while (!result_.interrupted && !result_.out_of_time && !result_.model_trusted &&
         result_.explore_rounds < static_cast<size_t>(options_.explore_rounds) && done() < explore_end) {
    const size_t size = std::min(explore_end - done(), std::max<size_t>(1, seeds / 2));
    std::vector<size_t> batch;
    if (result_.model.fitted) {
      for (size_t c : ranked_unmeasured()) {
        if (batch.size() >= (size + 1) / 2) break;
        batch.push_back(c);
      }
    }
    std::vector<bool> chosen(n, false);
    for (size_t c : batch) chosen[c] = true;
    while (batch.size() < size && random_next < n) {
      const size_t c = order_[random_next++];
      if (!measured_[c] && !chosen[c]) batch.push_back(c);
    }
    if (batch.empty()) break;
    measure_batch(batch, "explore");
    ++result_.explore_rounds;
    fit();
  }
  if (!result_.model_trusted) {
    result_.warnings.push_back(
        result_.model.fitted
            ? fmt::format("low_model_confidence: the model's cross-validated R² ({:.2f}) stayed under --min-r2 ({:g}); its prune keeps "
                          "what it predicts within {:g} times the best instead of {:g}",
                          result_.model.cv_r2, options_.min_r2, options_.prune_factor * options_.prune_factor, options_.prune_factor)
            : std::string("low_model_confidence: too few configurations succeeded to fit a model"));
  }

  // Prune: keep what the model predicts within the factor of the best measured; widen the factor
  // (square it) when the model is not trusted; without a model, keep everything. A model that
  // predicts no better than the mean of what it was fitted to (a cross-validated R² at or under 0)
  // prunes nothing either: every configuration left survives, best predicted first. (Its prune
  // stopped a run on a rugged landscape of 144 configurations at 36 measured of a budget of 143,
  // the best missed by 14 %.)
  std::vector<size_t> survivors;
  result_.prune_factor_used = result_.model_trusted ? options_.prune_factor : options_.prune_factor * options_.prune_factor;
  if (!result_.interrupted && !result_.out_of_time) {
    if (result_.model.fitted && best_cost_) {
      const bool skilled = result_.model.cv_r2 > 0;
      if (!skilled) {
        result_.prune_factor_used = 0;
        result_.warnings.push_back(fmt::format("model_without_skill: the model predicts no better than the mean of its measurements "
                                               "(cross-validated R² {:.2f}), so it prunes nothing: what is left is measured in the "
                                               "order it predicts",
                                               result_.model.cv_r2));
      }
      size_t unmeasured = 0;
      for (size_t c : ranked_unmeasured()) {
        ++unmeasured;
        if (!skilled || model.predict(c) <= *best_cost_ * result_.prune_factor_used) survivors.push_back(c);
      }
      result_.pruned = unmeasured - survivors.size();
    } else {
      for (; random_next < n; ++random_next) {
        if (!measured_[order_[random_next]]) survivors.push_back(order_[random_next]);
      }
      result_.prune_factor_used = 0;
      result_.warnings.push_back("no_model: too few configurations succeeded to fit a model: what is left is measured in a seeded "
                                 "random order");
    }
  }
  result_.survivors = survivors.size();

  // Confirm the survivors in ranked order within the budget, in batches of a fixed size (so that
  // any number of workers measures the same configurations); each batch refits the model, which
  // re-ranks the survivors left (the set stays as pruned).
  const size_t step = std::max<size_t>(1, options_.confirm_batch);
  const ModelFit pruning_fit = result_.model;
  const bool pruning_trusted = result_.model_trusted;
  while (!survivors.empty() && room()) {
    const size_t take = std::min({step, result_.budget - done(), survivors.size()});
    measure_batch(std::vector<size_t>(survivors.begin(), survivors.begin() + static_cast<long>(take)), "confirm");
    survivors.erase(survivors.begin(), survivors.begin() + static_cast<long>(take));
    fit();
    if (result_.model.fitted && !survivors.empty()) {
      std::vector<std::pair<double, size_t>> ranked;
      for (size_t c : survivors) ranked.emplace_back(model.predict(c), c);
      std::sort(ranked.begin(), ranked.end());
      for (size_t i = 0; i < ranked.size(); ++i) survivors[i] = ranked[i].second;
    }
  }
  // The document reports the model that pruned, and the last fit's quality beside it.
  result_.final_model = result_.model;
  result_.model = pruning_fit;
  result_.model_trusted = pruning_trusted;
}

}  // namespace rpl::autotune
