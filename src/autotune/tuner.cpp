#include <rpl/autotune/tuner.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include <rpl/core/error.hpp>

#include "search.hpp"

namespace rpl::autotune {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace

std::vector<size_t> seeded_permutation(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

Search::Search(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
               const ProgressCallback& progress, const std::atomic<bool>* cancel)
    : space_(space), evaluator_(evaluator), store_(store), options_(options), progress_(progress), cancel_(cancel),
      measured_(space.size(), false), order_(seeded_permutation(space.size(), options.seed)),
      start_(std::chrono::steady_clock::now()) {
  failed_before_.resize(space.size(), false);
  for (size_t c : options.warm_start_failures) {
    if (c < space.size()) failed_before_[c] = true;
  }
}

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
  if (options_.time_budget_seconds) p.time_left_seconds = std::max(0.0, *options_.time_budget_seconds - spent_seconds());
  progress_(p);
}

// Keeps a measured configuration, and the best so far after it. A point's seconds are when it and
// all before it had ended: workers may end a batch out of its order, so the curve takes the later
// clock (a replay's, run_on_recorded_clock, the same whatever threads would have done).
void Search::record(MeasuredConfiguration entry, double ended_seconds) {
  CurvePoint point = result_.curve.empty() ? CurvePoint{} : result_.curve.back();
  point.measured = result_.measured.size() + 1;
  point.seconds = std::max(point.seconds, ended_seconds);
  if (entry.measurement.ok()) {
    const double c = cost(entry.measurement);
    if (!best_cost_ || c < *best_cost_) best_cost_ = c;
    if (!point.best || c < (options_.maximize ? 1.0 / point.best_value : point.best_value)) {
      point.best = entry.configuration;
      point.best_value = entry.measurement.value;
      point.phase = entry.phase;
    }
  }
  result_.curve.push_back(point);
  result_.measured.push_back(std::move(entry));
}

// Measures the configurations (each at most once over the whole search), one worker each at a
// time; results are recorded in the list's order, whichever worker finished first. None is
// started once the time budget has no room for it (out_of_time) or the run is cancelled.
void Search::measure_batch(const std::vector<size_t>& configurations, const std::string& phase) {
  Batch batch;
  batch.phase = phase;
  for (size_t c : configurations) {
    if (measured_[c]) fail(Errc::internal, "configuration {} would be measured twice", c);
    measured_[c] = true;
    MeasuredConfiguration entry{c, phase, false, {}};
    if (auto stored = store_.find(c)) {
      entry.cached = true;
      entry.measurement = *stored;
    } else {
      batch.to_run.push_back(batch.entries.size());
    }
    batch.entries.push_back(entry);
  }
  batch.started.assign(batch.entries.size(), 0);
  batch.ended.assign(batch.entries.size(), spent_seconds());  // a stored one costs nothing: it ends now
  const size_t workers = std::clamp<size_t>(batch.to_run.size(), 1, static_cast<size_t>(std::max(1, options_.workers)));
  if (evaluator_.replays_recorded_time()) {
    run_on_recorded_clock(batch, workers);
  } else {
    run_live(batch, workers);
  }
  for (size_t i = 0; i < batch.entries.size(); ++i) {
    auto& entry = batch.entries[i];
    if (!entry.cached && (!batch.started[i] || entry.measurement.interrupted || entry.measurement.runs == 0) && entry.measurement.ok()) {
      measured_[entry.configuration] = false;  // never run: an interruption or the clock came first
      if (cancelled() || entry.measurement.interrupted) {
        result_.interrupted = true;
      } else {
        result_.out_of_time = true;
      }
      continue;
    }
    record(std::move(entry), batch.ended[i]);
  }
  if (batch.to_run.empty() && !batch.entries.empty()) report(phase, done());  // all of it from the store
  if (cancelled()) result_.interrupted = true;
  if (out_of_time()) result_.out_of_time = true;
}

void Search::note_ended(Batch& batch, size_t i) {
  const auto& entry = batch.entries[i];
  const auto& m = entry.measurement;
  if (m.interrupted) return;
  note_time_taken(m, batch.phase);
  // A node's failure is not the configuration's: a later run measures it again.
  if (m.failure != Failure::node_failed) store_.store(entry.configuration, m);
  if (m.ok() && (!best_cost_ || cost(m) < *best_cost_)) best_cost_ = cost(m);
  report(batch.phase, done() + batch.entries.size() - batch.to_run.size() + ++batch.finished);
}

void Search::run_live(Batch& batch, size_t workers) {
  std::mutex mutex;
  std::exception_ptr error;
  std::atomic<bool> stop{false};
  std::atomic<size_t> next{0};
  // Measures the batch's next configuration on worker w; false once there is none to measure.
  auto measure_next = [&](int w) {
    if (stop.load() || cancelled() || out_of_time()) return false;
    const size_t i = next.fetch_add(1);
    if (i >= batch.to_run.size()) return false;
    if (options_.time_budget_seconds) round_room_left_ = round_held_back() > 0;
    const size_t at = batch.to_run[i];
    batch.started[at] = 1;
    try {
      ++busy_;
      batch.entries[at].measurement = evaluator_.measure(batch.entries[at].configuration, w, cancel_);
      --busy_;
      std::lock_guard<std::mutex> guard(mutex);
      note_ended(batch, at);
      batch.ended[at] = spent_seconds();
      return true;
    } catch (...) {
      --busy_;
      std::lock_guard<std::mutex> guard(mutex);
      if (!error) error = std::current_exception();
      stop = true;
      return false;
    }
  };
  auto worker = [&](int w) {
    while (measure_next(w)) {
    }
  };
  if (workers <= 1) {
    worker(0);
  } else {
    while (evaluator_.next_measurement_fixes_the_objective() && measure_next(0)) {
    }
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w) threads.emplace_back(worker, static_cast<int>(w));
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
}

void Search::observations(std::vector<size_t>& configurations, std::vector<double>& costs) const {
  for (const auto& m : result_.measured) {
    if (!m.measurement.ok()) continue;
    configurations.push_back(m.configuration);
    costs.push_back(cost(m.measurement));
  }
}

std::vector<size_t> Search::failed() const {
  std::vector<size_t> out;
  for (const auto& m : result_.measured) {
    if (!m.measurement.ok()) out.push_back(m.configuration);
  }
  return out;
}

void Search::run_random() {
  std::vector<size_t> batch;
  for (size_t c : order_) {
    if (batch.size() + done() >= result_.budget) break;
    if (!measured_[c]) batch.push_back(c);
  }
  measure_batch(batch, "random");
}

// Re-measures the two best, interleaved (A B A B ...) on worker 0, and keeps as best the better
// of them whose measurements succeeded and were either stable once or agreed with each other; one
// that fails, or whose medians disagree as well as its launches, is recorded as such (unstable) and
// the next in line takes its place. Launches of a kernel of tens of microseconds can spread beyond
// the stability target in every run while their medians agree: on an H200, the 37 fastest of the
// 240 configurations of a row reduction of 31 µs (examples/rowsum, cv 5 to 6 %) were recorded
// unstable, and the best reported was 2.6 % slower than the fastest of them; kept now, the best's
// three medians agree within 0.2 % (bench/data/autotune_rowsum_h200_live.txt). With two workers or
// more, a round measures the two at once, on workers 0 and 1, and the next round swaps them: each
// is measured on both GPUs, so that a difference between the GPUs does not decide between the two,
// and a round takes the longer of the two instead of both (with one worker in use, the
// re-measurements had been 38 % of a 10 % run's recorded seconds on the Triton table at 4096).
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
  bool first_round = round_room_left_;  // the one a time budget's search left room for; later ones run where they fit
  while (!cancelled()) {
    std::vector<size_t> pair;
    while (pair.size() < 2 && next < order.size()) pair.push_back(order[next++]);
    if (pair.empty()) break;
    std::vector<Remeasurement> rounds(pair.size());
    for (size_t k = 0; k < pair.size(); ++k) rounds[k].configuration = result_.measured[pair[k]].configuration;
    auto keep = [&](size_t k, const Measurement& m) {
      if (!m.interrupted && m.failure != Failure::node_failed) rounds[k].rounds.push_back(m);
    };
    for (int r = 0; r < options_.remeasure_rounds && !cancelled(); ++r) {
      if (!first_round && !remeasure_round_fits(pair.size())) break;
      first_round = false;
      if (remeasures_at_once(pair.size())) {
        const auto [a, b] = measure_at_once(rounds[0].configuration, rounds[1].configuration, r % 2);
        keep(0, a);
        keep(1, b);
        continue;
      }
      for (size_t k = 0; k < pair.size(); ++k) {
        auto m = evaluator_.measure(rounds[k].configuration, 0, cancel_);
        recorded_seconds_ += m.seconds;
        keep(k, m);
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
      if (!rm.rounds.empty()) {  // else no round fitted in the time left, and the first measurement stands
        const auto [low, high] = std::minmax_element(values.begin(), values.end());
        rm.spread = (*high - *low) / rm.value;
        if (entry.measurement.ok() && !rm.stable && rm.spread > options_.max_cv) {  // its medians disagree too
          entry.measurement.failure = Failure::unstable;
          entry.measurement.detail = "its coefficient of variation stayed above the target when measured again, and its medians "
                                     "disagreed by more than it";
        }
        result_.remeasured.push_back(rm);
      }
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
      const auto& rm = rounds[*winner];
      result_.best = rm.configuration;
      result_.best_value = rm.value;
      if (!rm.rounds.empty() && !rm.stable) {  // kept for its medians' agreement
        result_.warnings.push_back(fmt::format("best_noisy: the best's launches spread beyond the stability target (cv {:.1f} % the "
                                               "first time, --max-cv {:g}) each of the {} times it was measured, but their medians "
                                               "agreed within {:.1f} %: its value is their median",
                                               100 * result_.measured[pair[*winner]].measurement.cv, options_.max_cv,
                                               rm.rounds.size() + 1, 100 * rm.spread));
      }
      return;
    }
  }
}

// Configurations that all measure alike say that the parameters do not change the figure: the
// kernel timed may not be the one they tune (a check's, a library's), or the program ignores them.
// Of the benchmark's runs at 5 to 15 % of its 153 landscapes (seeds 1 to 3), the closest measured
// spread 11 % from the fastest to the slowest.
void Search::warn_if_alike() {
  constexpr double kAlike = 0.03;
  double low = std::numeric_limits<double>::infinity(), high = 0;
  size_t ok = 0;
  for (const auto& m : result_.measured) {
    if (!m.measurement.ok()) continue;
    ++ok;
    low = std::min(low, m.measurement.value);
    high = std::max(high, m.measurement.value);
  }
  if (ok < 3 || low <= 0 || high > low * (1 + kAlike)) return;
  result_.warnings.push_back(fmt::format("configurations_alike: the {} configurations measured are all within {:.1f} % of each other: "
                                         "the parameters hardly change this figure, or it is not of what they change (with a "
                                         "kernel's time, name the kernel they tune with --kernel; else check that the program reads "
                                         "its arguments)",
                                         ok, 100 * (high / low - 1)));
}

std::pair<Measurement, Measurement> Search::measure_at_once(size_t first, size_t second, int first_worker) {
  const int second_worker = 1 - first_worker;
  std::pair<Measurement, Measurement> out;
  if (evaluator_.replays_recorded_time()) {
    out = {evaluator_.measure(first, first_worker, cancel_), evaluator_.measure(second, second_worker, cancel_)};
  } else {
    std::exception_ptr error;
    std::thread other([&] {
      try {
        out.second = evaluator_.measure(second, second_worker, cancel_);
      } catch (...) {
        error = std::current_exception();
      }
    });
    try {
      out.first = evaluator_.measure(first, first_worker, cancel_);
    } catch (...) {
      other.join();
      throw;
    }
    other.join();
    if (error) std::rethrow_exception(error);
  }
  recorded_seconds_ += std::max(out.first.seconds, out.second.seconds);
  return out;
}

TuneResult Search::run() {
  const size_t n = space_.size();
  result_.strategy = options_.strategy;
  result_.batch = chosen_together(options_);
  result_.space_size = n;
  result_.combinations = space_.combinations;
  result_.rejected = space_.rejected;
  // A count; else a fraction of the space; else a time alone bounds the search; else the default.
  const size_t default_budget = std::max(static_cast<size_t>(std::ceil(0.2 * static_cast<double>(n))), std::min<size_t>(n, 10));
  size_t budget = n;
  if (options_.budget) {
    budget = *options_.budget;
  } else if (options_.budget_fraction) {
    budget = static_cast<size_t>(std::ceil(*options_.budget_fraction * static_cast<double>(n)));
  } else if (!options_.time_budget_seconds) {
    budget = default_budget;
  }
  result_.budget = std::min(std::max<size_t>(budget, 1), n);
  // What a strategy plans its seeds and batches for: the budget, or where a time alone bounds the
  // search (the whole space its count), the default budget.
  const bool time_alone = result_.budget >= n && options_.time_budget_seconds && !options_.budget && !options_.budget_fraction;
  planned_ = time_alone ? std::min(default_budget, n) : result_.budget;
  if (result_.budget >= n && !time_alone) {
    // The whole space: nothing to choose, every configuration in the seeded order.
    run_random();
  } else if (options_.strategy != Strategy::random && result_.budget <= model_minimum()) {
    // Too few configurations for a model to guide any: a spread of the space instead.
    result_.warnings.push_back(fmt::format("budget_too_small_for_a_model: {} needs more than {} configurations to choose any; a "
                                           "spread of the space was measured instead",
                                           strategy_name(options_.strategy), model_minimum()));
    const size_t warm = measure_warm_start_bests("spread", result_.budget);
    measure_batch(spread(result_.budget - warm, GaussianProcess(space_)), "spread");
  } else if (options_.strategy == Strategy::bayes) {
    run_bayes();
  } else if (options_.strategy == Strategy::model) {
    run_model();
  } else {
    run_random();
  }
  if (result_.out_of_time) {
    result_.warnings.push_back(fmt::format("time_budget_reached: the {:g} s of --budget ran out after {} of {} configurations",
                                           options_.time_budget_seconds.value_or(0), done(), space_.size()));
    warn_if_no_model_chose();
  }
  if (!result_.interrupted) {
    report("remeasure", done());
    confirm_best();
    warn_if_best_not_remeasured();
  }
  warn_if_alike();
  // The ranking: best first by final value, failures left out.
  std::vector<std::pair<double, size_t>> ranked;
  for (const auto& [c, value] : result_.final_value) ranked.emplace_back(options_.maximize ? -value : value, c);
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < ranked.size() && i < options_.top_k; ++i) result_.top.push_back(ranked[i].second);
  return result_;
}

size_t Search::measure_warm_start_bests(const std::string& phase, size_t limit) {
  std::vector<size_t> bests;
  for (size_t c : options_.warm_start_bests) {
    if (bests.size() < limit && !measured_[c] && std::find(bests.begin(), bests.end(), c) == bests.end()) bests.push_back(c);
  }
  // Earlier costs given without their runs' bests (TuneOptions::warm_start set directly): the cheapest.
  if (options_.warm_start_bests.empty() && !options_.warm_start.empty() && limit > 0) bests.push_back(options_.warm_start.front().first);
  if (!bests.empty()) measure_batch(bests, phase);
  return bests.size();
}

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

// Under a time budget, what is measured already depends on how many measure at once, and
// choosing one at a time leaves all but one idle: with four workers on the ten Triton tables of
// bench/data, bayes found one within 3 % in 83, 99 and 174 runs of 200 at 30, 60 and 120 s
// choosing one, 113, 194 and 200 choosing four. Under a count, one at a time keeps the
// configurations measured the same for any number of workers, and costs fewer of them.
size_t chosen_together(const TuneOptions& options) {
  if (options.batch) return options.batch;
  return options.time_budget_seconds ? static_cast<size_t>(std::max(1, options.workers)) : 1;
}

std::string_view strategy_name(Strategy strategy) {
  switch (strategy) {
    case Strategy::bayes: return "bayes";
    case Strategy::model: return "model";
    case Strategy::random: return "random";
  }
  return "bayes";
}

std::optional<Strategy> strategy_from_name(std::string_view name) {
  for (Strategy s : {Strategy::bayes, Strategy::model, Strategy::random}) {
    if (strategy_name(s) == name) return s;
  }
  return std::nullopt;
}

TuneResult tune(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
                const ProgressCallback& progress, const std::atomic<bool>* cancel) {
  if (space.size() == 0) fail(Errc::bad_input, "the search space is empty");
  Search search(space, evaluator, store, options, progress, cancel);
  return search.run();
}

}  // namespace rpl::autotune
