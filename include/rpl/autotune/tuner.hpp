#pragma once
// The search, by one of three strategies, all within one budget of configurations (and of time):
//  - bayes (the default): a spread of seeds, as few as a model needs, then each next
//    configuration, under a Gaussian process, the best measured's neighbour of lowest lower
//    confidence bound (with two seeds, the centre too, once, where its bound is lower or the best
//    has no neighbour left; where the best 8 have none left, the one of most expected improvement
//    anywhere); a configuration that failed counts as 1.5 times the worst cost measured; with a
//    warm start (earlier runs' costs), their best is the first seed and the process models the
//    log cost less theirs;
//  - model: a seed sample (at most half the budget), fit (QuadraticModel), predict every
//    unmeasured configuration, prune to those predicted within prune_factor of the best measured
//    (widened, after more measurements, while the model's cross-validated R² stays under min_r2),
//    confirm the survivors in predicted order;
//  - random: the budget's worth of a seeded random order.
// A budget too small for a model measures a spread of the space instead, and says so; one of the
// whole space measures it all in a seeded order (phase random) whatever the strategy. Then the
// winner and the runner-up are re-measured interleaved before a best is declared. Nothing is
// measured twice except by those deliberate re-measurements; a stored measurement counts as
// measured. The best so far after each measured configuration is kept as a curve.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rpl/autotune/gaussian_process.hpp>
#include <rpl/autotune/measurement.hpp>
#include <rpl/autotune/model.hpp>
#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

enum class Strategy { bayes, model, random };
std::string_view strategy_name(Strategy strategy);
std::optional<Strategy> strategy_from_name(std::string_view name);

struct TuneOptions {
  Strategy strategy = Strategy::bayes;  // the one that measured best (bench/autotune_landscapes.sh)
  uint64_t seed = 1;
  double seed_fraction = 0.1;
  size_t seed_floor = 10;
  double prune_factor = 1.75;
  double min_r2 = 0.75;            // compared with the cross-validated R²
  int explore_rounds = 3;          // further batches while the model is weak
  std::optional<size_t> budget;    // distinct configurations to measure, at most
  std::optional<double> budget_fraction;  // of the space, when budget is not given; none: 20 %, at least
                                          // 10 configurations (or the whole of a smaller space)
  std::optional<double> time_budget_seconds;  // the whole run's: the search stops where a configuration and
                                              // a round of re-measuring the two best would end after it
                                              // (the round once two have succeeded, one a parameter
                                              // past the seeds, under bayes once its process sees no
                                              // better one likely, and while it fits)
  size_t batch = 0;                // bayes: configurations chosen together between fits; 0: chosen_together
  int workers = 1;                 // measure at once; the search does not depend on it
  size_t confirm_batch = 8;        // survivors measured between refits of the model
  bool maximize = false;           // the objective is a figure to maximize (--maximize)
  size_t top_k = 5;
  int remeasure_rounds = 2;        // interleaved re-measurements of the winner and runner-up
  double max_cv = 0.05;            // the measurements' stability target (StabilityPolicy::max_cv): a re-measured
                                   // configuration whose launches stay spread beyond it is still kept where its
                                   // medians agree within it (confirm_best)
  std::vector<std::pair<size_t, double>> warm_start;  // bayes: earlier runs' configurations and costs, best first (add_earlier_run)
  std::vector<size_t> warm_start_failures;            // bayes: those that failed there, not proposed while others are left
  std::vector<size_t> warm_start_bests;               // bayes: each earlier run's best, in the order the runs were added
};

/// Adds an earlier run of the space (another size or device) to options' warm start: the costs of
/// the configurations that succeeded in it, scaled so that its best costs what the first run's best
/// does (sizes differ in scale more than in shape), and those that failed in it, unless another run
/// had them succeed. The warm start stays cheapest first, ties in the order the runs were added; the
/// runs' bests, in that order, are the first seeds.
void add_earlier_run(TuneOptions& options, const std::vector<std::pair<size_t, double>>& costs, const std::vector<size_t>& failures);

/// Where measurements are kept between runs (the SQLite cache) or not at all.
class MeasurementStore {
 public:
  virtual ~MeasurementStore() = default;
  virtual std::optional<Measurement> find(size_t configuration) = 0;
  virtual void store(size_t configuration, const Measurement& m) = 0;
};

/// Keeps nothing: every configuration is measured (replays, benchmarks).
class NullStore : public MeasurementStore {
 public:
  std::optional<Measurement> find(size_t) override { return std::nullopt; }
  void store(size_t, const Measurement&) override {}
};

struct MeasuredConfiguration {
  size_t configuration = 0;
  std::string phase;     // seed, explore, confirm (model); seed, guided (bayes); random; spread
  bool cached = false;   // taken from the store, not run now
  Measurement measurement;
};

struct Remeasurement {
  size_t configuration = 0;
  std::vector<Measurement> rounds;
  double value = 0;      // median of the first measurement and the rounds that succeeded
  bool stable = false;   // any of them stable
  double spread = 0;     // the medians' range (the first measurement's and the rounds'), over value:
                         // where none was stable, it is kept within TuneOptions::max_cv
};

struct TuneProgress {
  std::string phase;
  size_t done = 0;       // distinct configurations measured
  size_t planned = 0;    // the budget
  size_t workers = 1;
  size_t busy = 0;       // workers measuring now
  std::optional<double> best_value;
  double elapsed_seconds = 0;
  std::optional<double> time_left_seconds;  // under a time budget, what is left of it (on its clock)
};

/// The best so far once a configuration was measured.
struct CurvePoint {
  size_t measured = 0;                // configurations measured, this one included
  std::optional<size_t> best;         // none while every one failed
  double best_value = 0;
  std::string phase;                  // the phase that measured the best
  double seconds = 0;                 // into the run, when all of these had been measured (the time budget's clock)
};

/// bayes: of the configurations left unmeasured, the one the process, fitted to every measurement,
/// rates likeliest to beat the best measured by the margin (3 %), and that chance.
struct LikeliestBetter {
  size_t configuration = 0;
  double chance = 0;  // 0..1
  double margin = 0;  // a fraction of the best measured cost
};

struct TuneResult {
  Strategy strategy = Strategy::bayes;
  size_t batch = 1;                              // bayes: chosen together between fits
  size_t space_size = 0;
  uint64_t combinations = 0;
  uint64_t rejected = 0;
  size_t budget = 0;
  size_t seed_count = 0;
  std::vector<MeasuredConfiguration> measured;   // in the order measured
  std::vector<Remeasurement> remeasured;
  std::optional<size_t> best;                    // index into the space
  double best_value = 0;
  std::vector<size_t> top;                       // best first, at most top_k
  std::vector<CurvePoint> curve;                 // one point per measured configuration
  ModelFit model;                                // the fit that pruned
  ModelFit final_model;                          // refitted on every measurement, at the end
  GaussianProcessFit process;                    // bayes: the last fit
  std::optional<size_t> centre;                  // bayes: nearest the space's centre (a seed, or a candidate of the climb)
  std::optional<LikeliestBetter> likeliest_better;  // bayes: none where nothing is left or no process fits
  bool model_trusted = false;
  double prune_factor_used = 0;
  size_t survivors = 0;                          // after pruning, unmeasured
  size_t pruned = 0;                             // unmeasured configurations the prune removed
  size_t explore_rounds = 0;
  std::vector<std::string> warnings;             // low_model_confidence, ...
  bool interrupted = false;
  bool out_of_time = false;                      // the time budget ended the search
  std::map<size_t, double> final_value;          // value used for ranking (re-measured where it was)

  size_t measured_in(const std::string& phase) const;
  std::map<Failure, size_t> failures() const;
};

using ProgressCallback = std::function<void(const TuneProgress&)>;

/// How many configurations bayes chooses together between fits: options.batch where given, else
/// one per worker under a time budget, and one under a count.
size_t chosen_together(const TuneOptions& options);

/// Runs the search. Error(run_failed) is not thrown for failing configurations: they are
/// recorded; the result has no best when every one failed. An interruption (cancel) stops at the
/// next measurement boundary with interrupted set.
TuneResult tune(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
                const ProgressCallback& progress = {}, const std::atomic<bool>* cancel = nullptr);

}  // namespace rpl::autotune
