#include <rpl/autotune/tuner.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

// A permutation of 0..n-1 that depends only on the seed: mt19937_64's output is fixed by the
// standard, unlike std::shuffle's use of it.
std::vector<size_t> seeded_permutation(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

class Search {
 public:
  Search(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
         const ProgressCallback& progress, const std::atomic<bool>* cancel)
      : space_(space), evaluator_(evaluator), store_(store), options_(options), progress_(progress), cancel_(cancel),
        model_(space), measured_(space.size(), false), start_(std::chrono::steady_clock::now()) {}

  TuneResult run();

 private:
  double cost(const Measurement& m) const { return options_.maximize ? 1.0 / m.value : m.value; }
  bool cancelled() const { return cancel_ && cancel_->load(); }
  size_t done() const { return result_.measured.size(); }
  void measure_batch(const std::vector<size_t>& configurations, const std::string& phase);
  void fit();
  std::vector<size_t> ranked_unmeasured() const;
  void confirm_best();
  void report(const std::string& phase, size_t done_now);

  const SearchSpace& space_;
  Evaluator& evaluator_;
  MeasurementStore& store_;
  const TuneOptions& options_;
  const ProgressCallback& progress_;
  const std::atomic<bool>* cancel_;
  QuadraticModel model_;
  std::vector<bool> measured_;
  std::chrono::steady_clock::time_point start_;
  TuneResult result_;
  std::optional<double> best_cost_;
  std::atomic<size_t> busy_{0};  // workers measuring now
};

void Search::report(const std::string& phase, size_t done_now) {
  if (!progress_) return;
  TuneProgress p;
  p.phase = phase;
  p.done = done_now;
  p.workers = static_cast<size_t>(std::max(1, options_.workers));
  p.busy = busy_.load();
  p.planned = result_.budget;
  if (best_cost_) p.best_value = options_.maximize ? 1.0 / *best_cost_ : *best_cost_;
  p.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  progress_(p);
}

// Measures the configurations (each at most once over the whole search), one worker each at a
// time; results are recorded in the list's order, whichever worker finished first.
void Search::measure_batch(const std::vector<size_t>& configurations, const std::string& phase) {
  std::vector<size_t> to_run;
  std::vector<MeasuredConfiguration> batch;
  for (size_t c : configurations) {
    if (measured_[c]) fail(Errc::internal, "configuration {} would be measured twice", c);
    measured_[c] = true;
    MeasuredConfiguration entry{c, phase, false, {}};
    if (auto stored = store_.find(c)) {
      entry.cached = true;
      entry.measurement = *stored;
    } else {
      to_run.push_back(batch.size());
    }
    batch.push_back(entry);
  }
  std::mutex mutex;
  std::exception_ptr error;
  std::atomic<bool> stop{false};
  std::atomic<size_t> next{0};
  size_t finished = 0;
  auto worker = [&](int w) {
    for (;;) {
      if (stop.load() || cancelled()) return;
      const size_t i = next.fetch_add(1);
      if (i >= to_run.size()) return;
      auto& entry = batch[to_run[i]];
      try {
        ++busy_;
        entry.measurement = evaluator_.measure(entry.configuration, w, cancel_);
        --busy_;
        std::lock_guard<std::mutex> guard(mutex);
        const auto& m = entry.measurement;
        // A node's failure is not the configuration's: a later run measures it again.
        if (!m.interrupted && m.failure != Failure::node_failed) store_.store(entry.configuration, m);
        if (m.ok() && !m.interrupted && (!best_cost_ || cost(m) < *best_cost_)) best_cost_ = cost(m);
        if (!m.interrupted) report(phase, done() + batch.size() - to_run.size() + ++finished);
      } catch (...) {
        --busy_;
        std::lock_guard<std::mutex> guard(mutex);
        if (!error) error = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  const int workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(1, options_.workers)), to_run.size()));
  if (workers <= 1) {
    worker(0);
  } else {
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) threads.emplace_back(worker, w);
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  for (size_t i = 0; i < batch.size(); ++i) {
    auto& entry = batch[i];
    if (!entry.cached && (entry.measurement.interrupted || entry.measurement.runs == 0) && entry.measurement.ok()) {
      measured_[entry.configuration] = false;  // never run: an interruption came first
      result_.interrupted = true;
      continue;
    }
    if (entry.measurement.ok()) {
      const double c = cost(entry.measurement);
      if (!best_cost_ || c < *best_cost_) best_cost_ = c;
    }
    result_.measured.push_back(std::move(entry));
  }
  if (to_run.empty() && !batch.empty()) report(phase, done());  // all of it from the store
  if (cancelled()) result_.interrupted = true;
}

void Search::fit() {
  std::vector<size_t> configs;
  std::vector<double> costs;
  for (const auto& m : result_.measured) {
    if (!m.measurement.ok()) continue;
    configs.push_back(m.configuration);
    costs.push_back(cost(m.measurement));
  }
  result_.model = model_.fit(configs, costs);
  result_.model_trusted = result_.model.fitted && result_.model.cv_r2 >= options_.min_r2;
}

// Unmeasured configurations, best predicted first (ties by index); needs a fitted model.
std::vector<size_t> Search::ranked_unmeasured() const {
  std::vector<std::pair<double, size_t>> ranked;
  for (size_t c = 0; c < space_.size(); ++c) {
    if (!measured_[c]) ranked.emplace_back(model_.predict(c), c);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<size_t> out;
  for (const auto& [_, c] : ranked) out.push_back(c);
  return out;
}

// Re-measures the two best, interleaved (A B A B ...) on worker 0, and keeps as best the better
// of them whose measurements succeeded and at least one was stable; one that fails or stays
// unstable is recorded as such and the next in line takes its place.
void Search::confirm_best() {
  std::vector<size_t> order;  // indices into result_.measured, best first
  for (size_t i = 0; i < result_.measured.size(); ++i) {
    if (result_.measured[i].measurement.ok()) order.push_back(i);
  }
  auto by_cost = [&](size_t a, size_t b) {
    const double ca = cost(result_.measured[a].measurement), cb = cost(result_.measured[b].measurement);
    return ca != cb ? ca < cb : result_.measured[a].configuration < result_.measured[b].configuration;
  };
  std::sort(order.begin(), order.end(), by_cost);
  for (size_t i : order) result_.final_value[result_.measured[i].configuration] = result_.measured[i].measurement.value;

  size_t next = 0;
  while (!cancelled()) {
    std::vector<size_t> pair;
    while (pair.size() < 2 && next < order.size()) pair.push_back(order[next++]);
    if (pair.empty()) break;
    std::vector<Remeasurement> rounds(pair.size());
    for (size_t k = 0; k < pair.size(); ++k) rounds[k].configuration = result_.measured[pair[k]].configuration;
    for (int r = 0; r < options_.remeasure_rounds && !cancelled(); ++r) {
      for (size_t k = 0; k < pair.size(); ++k) {
        auto m = evaluator_.measure(rounds[k].configuration, 0, cancel_);
        if (!m.interrupted && m.failure != Failure::node_failed) rounds[k].rounds.push_back(m);
      }
    }
    if (cancelled()) {
      result_.interrupted = true;
      return;
    }
    std::optional<size_t> winner;
    for (size_t k = 0; k < pair.size(); ++k) {
      auto& entry = result_.measured[pair[k]];
      auto& rm = rounds[k];
      std::vector<double> values{entry.measurement.value};
      rm.stable = entry.measurement.stable;
      for (const auto& m : rm.rounds) {
        if (!m.ok()) {  // it failed when measured again: not a configuration to recommend
          entry.measurement.failure = m.failure;
          entry.measurement.detail = "when measured again: " + m.detail;
          break;
        }
        values.push_back(m.value);
        rm.stable = rm.stable || m.stable;
      }
      rm.value = median_of(values);
      if (entry.measurement.ok() && !rm.stable) {
        entry.measurement.failure = Failure::unstable;
        entry.measurement.detail = "its coefficient of variation stayed above the target when measured again";
      }
      result_.remeasured.push_back(rm);
      if (!entry.measurement.ok()) {
        result_.final_value.erase(entry.configuration);
        store_.store(entry.configuration, entry.measurement);
        continue;
      }
      result_.final_value[entry.configuration] = rm.value;
      const double c = options_.maximize ? 1.0 / rm.value : rm.value;
      if (!winner) {
        winner = k;
      } else {
        const double w = options_.maximize ? 1.0 / rounds[*winner].value : rounds[*winner].value;
        if (c < w) winner = k;
      }
    }
    if (winner) {
      result_.best = rounds[*winner].configuration;
      result_.best_value = rounds[*winner].value;
      return;
    }
  }
}

TuneResult Search::run() {
  const size_t n = space_.size();
  result_.space_size = n;
  result_.combinations = space_.combinations;
  result_.rejected = space_.rejected;
  size_t seeds = std::max(options_.seed_floor, static_cast<size_t>(std::ceil(options_.seed_fraction * static_cast<double>(n))));
  seeds = std::min(seeds, n);
  size_t budget = options_.budget.value_or(static_cast<size_t>(std::ceil(options_.budget_fraction * static_cast<double>(n))));
  if (budget < seeds) {
    result_.warnings.push_back("budget_below_seed_count");
    budget = seeds;
  }
  result_.budget = std::min(budget, n);
  result_.seed_count = seeds;
  const auto order = seeded_permutation(n, options_.seed);

  // 1. Seed.
  measure_batch(std::vector<size_t>(order.begin(), order.begin() + static_cast<long>(seeds)), "seed");
  size_t random_next = seeds;  // the permutation continues to supply exploration
  auto next_random = [&](size_t count) {
    std::vector<size_t> out;
    while (out.size() < count && random_next < n) {
      const size_t c = order[random_next++];
      if (!measured_[c]) out.push_back(c);
    }
    return out;
  };

  // 2-3. Fit; while the model is weak, measure a further batch (half its best guesses, half
  // random) and refit. // Exploration takes at most half of what the budget leaves after seeding: the rest confirms.
  fit();
  const size_t explore_end = done() + (result_.budget - std::min(result_.budget, done())) / 2;
  while (!result_.interrupted && !result_.model_trusted && result_.explore_rounds < static_cast<size_t>(options_.explore_rounds) &&
         done() < explore_end) {
    const size_t room = explore_end - done();
    const size_t size = std::min(room, std::max<size_t>(1, seeds / 2));
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
      const size_t c = order[random_next++];
      if (!measured_[c] && !chosen[c]) batch.push_back(c);
    }
    if (batch.empty()) break;
    measure_batch(batch, "explore");
    ++result_.explore_rounds;
    fit();
  }
  if (!result_.model_trusted) result_.warnings.push_back("low_model_confidence");

  // 4. Prune: keep what the model predicts within the factor of the best measured; widen the
  // factor (square it) when the model is not trusted; without a model, keep everything.
  std::vector<size_t> survivors;
  result_.prune_factor_used = result_.model_trusted ? options_.prune_factor : options_.prune_factor * options_.prune_factor;
  if (!result_.interrupted) {
    if (result_.model.fitted && best_cost_) {
      size_t unmeasured = 0;
      for (size_t c : ranked_unmeasured()) {
        ++unmeasured;
        if (model_.predict(c) <= *best_cost_ * result_.prune_factor_used) survivors.push_back(c);
      }
      result_.pruned = unmeasured - survivors.size();
    } else {
      survivors = next_random(n);
      result_.prune_factor_used = 0;
      result_.warnings.push_back("no_model");
    }
  }
  result_.survivors = survivors.size();

  // 5. Confirm the survivors in ranked order within the budget, in batches of a fixed size (so
  // that any number of workers measures the same configurations); each batch refits the model,
  // which re-ranks the survivors left (the set stays as pruned).
  const size_t step = std::max<size_t>(1, options_.confirm_batch);
  const ModelFit pruning_fit = result_.model;
  const bool pruning_trusted = result_.model_trusted;
  while (!survivors.empty() && done() < result_.budget && !result_.interrupted) {
    const size_t take = std::min({step, result_.budget - done(), survivors.size()});
    measure_batch(std::vector<size_t>(survivors.begin(), survivors.begin() + static_cast<long>(take)), "confirm");
    survivors.erase(survivors.begin(), survivors.begin() + static_cast<long>(take));
    fit();
    if (result_.model.fitted && !survivors.empty()) {
      std::vector<std::pair<double, size_t>> ranked;
      for (size_t c : survivors) ranked.emplace_back(model_.predict(c), c);
      std::sort(ranked.begin(), ranked.end());
      for (size_t i = 0; i < ranked.size(); ++i) survivors[i] = ranked[i].second;
    }
  }
  // The document reports the model that pruned, and the last fit's quality beside it.
  result_.final_model = result_.model;
  result_.model = pruning_fit;
  result_.model_trusted = pruning_trusted;
  if (!result_.interrupted) {
    report("remeasure", done());
    confirm_best();
  }
  // The ranking: best first by final value, failures left out.
  std::vector<std::pair<double, size_t>> ranked;
  for (const auto& [c, value] : result_.final_value) ranked.emplace_back(options_.maximize ? -value : value, c);
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < ranked.size() && i < options_.top_k; ++i) result_.top.push_back(ranked[i].second);
  return result_;
}

}  // namespace

size_t TuneResult::measured_in(const std::string& phase) const {
  return static_cast<size_t>(std::count_if(measured.begin(), measured.end(), [&](const auto& m) { return m.phase == phase; }));
}

std::map<Failure, size_t> TuneResult::failures() const {
  std::map<Failure, size_t> out;
  for (Failure f : kFailureKinds) out[f] = 0;
  for (const auto& m : measured) {
    if (!m.measurement.ok()) ++out[m.measurement.failure];
  }
  return out;
}

TuneResult tune(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
                const ProgressCallback& progress, const std::atomic<bool>* cancel) {
  if (space.size() == 0) fail(Errc::bad_input, "the search space is empty");
  Search search(space, evaluator, store, options, progress, cancel);
  return search.run();
}

}  // namespace rpl::autotune
