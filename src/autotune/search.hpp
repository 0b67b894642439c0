#pragma once
// The state of one tuning run, shared by the files that define its parts: tuner.cpp (measuring,
// the budget, the curve, the re-measurement of the best, the random strategy), time_budget.cpp
// (the time budget's clock and estimates), strategy_model.cpp
// (the quadratic model's seed, explore, prune and confirm) and strategy_bayes.cpp (a Gaussian
// process choosing each next configuration, near the best measured first).
#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <rpl/autotune/tuner.hpp>

namespace rpl::autotune {

/// A permutation of 0..n-1 that depends only on the seed: mt19937_64's output is fixed by the
/// standard, unlike std::shuffle's use of it.
std::vector<size_t> seeded_permutation(size_t n, uint64_t seed);

/// The mean of the seconds measurements took, where the run's first counts at most as long as the
/// longest of the others once there are others (it may pay for the machine's cold start).
class SecondsMean {
 public:
  /// `runs_first`: the run's first measurement (not merely the first added here).
  void add(double seconds, bool runs_first);
  double mean() const;
  size_t count() const { return count_; }

 private:
  size_t count_ = 0;
  double sum_ = 0, longest_other_ = 0;
  std::optional<double> first_;
};

class Search {
 public:
  Search(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
         const ProgressCallback& progress, const std::atomic<bool>* cancel);

  TuneResult run();

 private:
  double cost(const Measurement& m) const { return options_.maximize ? 1.0 / m.value : m.value; }
  bool cancelled() const { return cancel_ && cancel_->load(); }
  /// The time budget's clock: the wall clock since the start or, where the evaluator replays a
  /// recording, the seconds its measurements took when recorded.
  double spent_seconds() const;
  /// Whether the time budget leaves no room for another configuration: its measurement and the round
  /// of re-measuring the two best held back for (round_held_back), as long as those measured so far
  /// took, would end after it.
  bool out_of_time() const;
  /// The seconds of that round the search holds back from configurations.
  double round_held_back() const;
  /// Whether bayes, past its first choices, measures on instead of holding the round back, its
  /// process still giving a configuration left a likely chance to beat the best (round_held_back).
  bool measures_on_for_a_better_one() const;
  /// Whether a round re-measures its `count` configurations at once (measure_at_once): two of them,
  /// and two workers or more.
  bool remeasures_at_once(size_t count) const { return count == 2 && options_.workers >= 2; }
  /// The seconds a round of re-measuring `count` configurations is expected to take: one
  /// re-measurement where they run at once, else one after another.
  double round_seconds(size_t count) const;
  /// Whether one more round of re-measuring `count` configurations is expected to end within the time budget.
  bool remeasure_round_fits(size_t count) const;
  /// Notes how long a measurement that ran took, for the estimates above, and whether it succeeded
  /// past the seeds (its phase), for round_held_back (under the batch's mutex).
  void note_time_taken(const Measurement& m, const std::string& phase);
  size_t done() const { return result_.measured.size(); }
  /// Whether the budget (of configurations, and of time) allows measuring more.
  bool room() const { return done() < result_.budget && !result_.interrupted && !out_of_time(); }
  void measure_batch(const std::vector<size_t>& configurations, const std::string& phase);
  /// A batch being measured: its entries (those from the store among them), the indices of those to
  /// run, whether each started, and when each ended on the budget's clock.
  struct Batch {
    std::string phase;
    std::vector<MeasuredConfiguration> entries;
    std::vector<size_t> to_run;
    std::vector<char> started;
    std::vector<double> ended;
    size_t finished = 0;
  };
  /// Runs the batch on `workers` threads, each taking the next configuration while the time lasts.
  void run_live(Batch& batch, size_t workers);
  /// Runs the batch one configuration at a time on the recorded clock, as `workers` GPUs would
  /// have run it (time_budget.cpp).
  void run_on_recorded_clock(Batch& batch, size_t workers);
  /// What a measurement that ended leaves: the estimates, the store, the best so far, the progress.
  void note_ended(Batch& batch, size_t i);
  void record(MeasuredConfiguration entry, double ended_seconds);
  void confirm_best();
  /// Measures two configurations at once, the first on worker `first_worker`, the second on the
  /// other of workers 0 and 1 (a replay answers them in that order); the clock advances by the longer.
  std::pair<Measurement, Measurement> measure_at_once(size_t first, size_t second, int first_worker);
  void report(const std::string& phase, size_t done_now);
  /// The measured configurations that succeeded, and their costs.
  void observations(std::vector<size_t>& configurations, std::vector<double>& costs) const;
  std::vector<size_t> failed() const;

  /// Measures the earlier runs' bests, in order and at most `limit` (where no run's best is named, the
  /// cheapest of the warm start), as seeds; returns how many.
  size_t measure_warm_start_bests(const std::string& phase, size_t limit);
  void warn_if_no_model_chose();
  void warn_if_best_not_remeasured();
  void warn_if_alike();
  void run_random();
  void run_model();
  void run_bayes();
  /// How many configurations the strategy's model needs before it can guide anything.
  size_t model_minimum() const;
  /// The unmeasured configurations in the seeded order (a bounded number of them in a huge space):
  /// what bayes chooses among.
  std::vector<size_t> candidates() const;
  /// count unmeasured configurations spread over the space: the seeded maximin design of the
  /// Gaussian process's unit cube (its closest pair, with those measured, as far apart as found;
  /// the run's process where there is one, whose cube it is).
  std::vector<size_t> spread(size_t count, const GaussianProcess& cube) const;
  /// Per candidate: whether the measured configuration nearest it in the unit cube failed (the
  /// run's process, whose cube it is, rather than a new one each round).
  std::vector<bool> nearest_measured_failed(const std::vector<size_t>& candidates, const GaussianProcess& cube) const;
  /// Per candidate: whether it failed in the warm start's run (TuneOptions::warm_start_failures).
  std::vector<bool> failed_before(const std::vector<size_t>& candidates) const;
  /// Drops those that failed in the warm start's run from candidates, where `enough` others are left.
  void drop_failed_before(std::vector<size_t>& candidates, size_t enough) const;

  const SearchSpace& space_;
  Evaluator& evaluator_;
  MeasurementStore& store_;
  const TuneOptions& options_;
  const ProgressCallback& progress_;
  const std::atomic<bool>* cancel_;
  std::vector<bool> measured_;
  std::vector<bool> failed_before_;  // per configuration: it failed in the warm start's run
  std::vector<size_t> order_;  // the seeded permutation the random choices come from
  std::chrono::steady_clock::time_point start_;
  TuneResult result_;
  size_t planned_ = 0;  // the count the strategy plans for (the budget; the default one where a time alone bounds it)
  std::optional<double> best_cost_;
  std::atomic<size_t> busy_{0};  // workers measuring now
  // Where the evaluator replays a recording, the clock a time budget is spent on: the recorded
  // seconds, as the workers would have spent them (run_on_recorded_clock).
  std::atomic<double> recorded_seconds_{0};
  // Means over the measurements that ran in this search: one configuration's (its build and any
  // failure included), and one re-measurement's (its build reused, so without it; those that succeeded).
  SecondsMean measured_seconds_, remeasured_seconds_;
  std::atomic<size_t> ran_ok_{0}, ran_ok_past_seeds_{0};  // measurements that succeeded: all, and those outside the seed phase
  std::atomic<double> measurement_seconds_{0}, remeasurement_seconds_{0};
  // Whether the search left room for the round of re-measurements when it last started a
  // configuration (or no time budget bounds it): then the round's first pass runs, fitting or not.
  std::atomic<bool> round_room_left_{true};
  // bayes, each round: the chance its process gives the likeliest configuration left to beat the
  // best by 3 % (as LikeliestBetter); -1 before a process fits, and under the other strategies.
  std::atomic<double> better_chance_{-1};
};

}  // namespace rpl::autotune
