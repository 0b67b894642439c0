// The time budget's accounting: its clock, the estimates of what the next measurement and a round of
// re-measurements will take, and whether they still fit (Search, search.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <rpl/core/text.hpp>

#include "search.hpp"

namespace rpl::autotune {
namespace {

// Where the bayes process gives a configuration left this chance or more to beat the best by 3 %, a
// time budget holds no round back (round_held_back). Runs that ended at a chance of 20 to 30 % missed
// the best by more than 3 % 12 times in 100, at 30 to 50 % 19, from 50 % on 31
// (bench/data/autotune_chance_calibration.txt). Replayed on the ten Triton tables of bench/data over
// 20 seeds, one worker, bayes found one within 3 % of the best in 97, 122, 152 and 183 runs of 200
// at 60, 80, 100 and 150 s, where, holding the round back once the model had chosen one a
// parameter, it had in 92, 109, 144 and 178; at 0.2, 99, 131, 156 and 184, but with a round in
// fewer runs (docs/autotune_strategies.md).
constexpr double kRoundChance = 0.3;

}  // namespace

double Search::spent_seconds() const {
  return evaluator_.replays_recorded_time() ? recorded_seconds_.load()
                                            : std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

// The re-measurement of the best is part of a time budget, so the search leaves it a round: a user
// who asks for 60 s gets the answer after about 60 s, not after the search's 60 s and the rounds.
bool Search::out_of_time() const {
  if (!options_.time_budget_seconds) return false;
  const double spent = spent_seconds(), budget = *options_.time_budget_seconds;
  return spent >= budget || spent + measurement_seconds_ + round_held_back() > budget;
}

// None until two configurations have succeeded: a lone one is the answer whatever its re-measurement
// says, and a second is worth more. None until as many have succeeded past the seeds as the space
// has parameters: a configuration the model chose gains more than the few per cent a round may
// correct, and a round held back right after the seeds took the place of the first it chose
// (replayed, the Triton table at 4096³ found its best at 30 s and missed it by 7 times at 45 s).
// Over 20 seeds on the ten Triton tables of bench/data, bayes found one within 3 % of the best in
// 81, 88 and 88 runs of 200 at 30, 40 and 45 s, where it had in 62, 69 and 76. Under bayes, none
// either while its process gives a configuration left a chance of kRoundChance or more to beat the
// best by 3 % (better_chance_): the climb is then likely to gain more than the round corrects, and
// the round is held back once it has gone where the process sees little left. None either where
// the round no longer fits: the time left then goes to configurations.
double Search::round_held_back() const {
  if (ran_ok_ < 2 || ran_ok_past_seeds_ < space_.parameters.size() || measures_on_for_a_better_one()) return 0;
  const double round = round_seconds(2);
  return spent_seconds() + round <= *options_.time_budget_seconds ? round : 0;
}

bool Search::measures_on_for_a_better_one() const {
  return ran_ok_past_seeds_ >= space_.parameters.size() && better_chance_ >= kRoundChance;
}

double Search::round_seconds(size_t count) const {
  return static_cast<double>(remeasures_at_once(count) ? 1 : count) * remeasurement_seconds_;
}

bool Search::remeasure_round_fits(size_t count) const {
  if (!options_.time_budget_seconds) return true;
  return spent_seconds() + round_seconds(count) <= *options_.time_budget_seconds;
}

// The run's first measurement may pay for the machine's cold start (libraries, drivers and caches
// loaded): in each of the ten Triton tables of bench/data it took 1.04 to 1.82 times the median of
// the rest, and live on an H200 8.4 s where the table's measurement of it took 4.7 s. So once others
// have run, the estimates count it at most as long as the longest of them.
void SecondsMean::add(double seconds, bool runs_first) {
  ++count_;
  sum_ += seconds;
  if (runs_first) {
    first_ = seconds;
  } else {
    longest_other_ = std::max(longest_other_, seconds);
  }
}

double SecondsMean::mean() const {
  if (count_ == 0) return 0;
  const double excess = first_ && count_ > 1 ? *first_ - std::min(*first_, longest_other_) : 0;
  return (sum_ - excess) / static_cast<double>(count_);
}

void Search::note_time_taken(const Measurement& m, const std::string& phase) {
  const bool first = measured_seconds_.count() == 0;
  measured_seconds_.add(m.seconds, first);
  measurement_seconds_ = measured_seconds_.mean();
  if (!m.ok()) return;
  remeasured_seconds_.add(m.seconds - m.build_seconds, first);
  ++ran_ok_;
  if (phase != "seed") ++ran_ok_past_seeds_;
  remeasurement_seconds_ = remeasured_seconds_.mean();
}

// A replay's workers take turns on the recorded clock: the next configuration goes to the worker
// free first and starts when it became free, and one that ended counts in the estimates from its
// end on. Run on threads, the replay's own microseconds decided which worker took which and what
// the estimates knew when, so that one replay of four workers under a time budget measured 10, 12
// or 14 configurations of the Triton table at 60 s; and the seconds were summed as though one GPU
// had measured them all, where four measure about four times as many in the time.
void Search::run_on_recorded_clock(Batch& batch, size_t workers) {
  std::vector<double> free_at(workers, recorded_seconds_.load());
  std::vector<std::pair<double, size_t>> running;  // when it ends, its index: measured, not yet ended
  auto end_until = [&](double t) {
    std::sort(running.begin(), running.end());
    size_t n = 0;
    for (; n < running.size() && running[n].first <= t; ++n) note_ended(batch, running[n].second);
    running.erase(running.begin(), running.begin() + static_cast<std::ptrdiff_t>(n));
  };
  const double never = std::numeric_limits<double>::infinity();
  for (size_t next = 0; next < batch.to_run.size();) {
    const size_t w = static_cast<size_t>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
    if (free_at[w] == never) break;  // every worker found the time spent
    recorded_seconds_ = free_at[w];
    end_until(free_at[w]);
    if (cancelled()) break;
    if (out_of_time()) {  // this worker starts nothing more; one free later may, as estimates fall
      free_at[w] = never;
      continue;
    }
    if (options_.time_budget_seconds) round_room_left_ = round_held_back() > 0;
    const size_t at = batch.to_run[next++];
    batch.started[at] = 1;
    batch.entries[at].measurement = evaluator_.measure(batch.entries[at].configuration, static_cast<int>(w), cancel_);
    free_at[w] += batch.entries[at].measurement.seconds;
    batch.ended[at] = free_at[w];
    running.emplace_back(free_at[w], at);
  }
  end_until(never);
  double last = recorded_seconds_;
  for (size_t at : batch.to_run) {
    if (batch.started[at]) last = std::max(last, batch.ended[at]);
  }
  recorded_seconds_ = last;
}

// Where the time ran out before a model chose any configuration (the seeds took it all), the run
// is no better than its seeds: says so, and about how long would let the model choose one per
// parameter after them, at the pace measured (a count budget too small says so up front instead).
void Search::warn_if_no_model_chose() {
  if (options_.strategy == Strategy::random || result_.measured_in("spread") || done() == 0) return;
  for (const char* chosen : {"guided", "explore", "confirm"}) {
    if (result_.measured_in(chosen)) return;
  }
  const size_t before_a_model = std::max(done(), result_.seed_count) + space_.parameters.size();
  const double enough = static_cast<double>(before_a_model) * measurement_seconds_ + round_seconds(2);
  result_.warnings.push_back(fmt::format("time_budget_too_small_for_a_model: the time ran out after {} ({:.1f} s each), "
                                         "before a model chose any; about --budget {:.0f}s would let it choose one per parameter",
                                         counted(done(), "configuration"), measurement_seconds_.load(), std::ceil(enough)));
}

// Where the time ran out before a round could measure the best again (a round is held back only
// once the model has chosen, and runs at the end only where it fits), the best's value is one
// measurement's: says so, and how long a round takes at the pace measured; and where bayes measured
// on because its process still saw a better configuration likely, that chance. One alone that
// succeeded needs no round to be chosen.
void Search::warn_if_best_not_remeasured() {
  if (!options_.time_budget_seconds || !result_.best || ran_ok_ < 2) return;
  for (const auto& rm : result_.remeasured) {
    if (rm.configuration == *result_.best) return;
  }
  result_.warnings.push_back(fmt::format("best_not_remeasured: the time ran out before the best could be measured again, so its value "
                                         "is its first measurement's; a round of re-measuring the two best takes about {:.0f} s more here{}",
                                         std::ceil(round_seconds(2)),
                                         measures_on_for_a_better_one() ? fmt::format(" (the search measured on instead: when it chose its last configurations, the "
                                                                   "process gave one left a chance of {:.2f} to beat the best by 3 %)",
                                                                   better_chance_.load())
                                                     : ""));
}

}  // namespace rpl::autotune
