#pragma once
// The search: seed (a deterministic random sample), fit (QuadraticModel), predict every
// unmeasured configuration, prune to those predicted within prune_factor of the best measured
// (widened, after more measurements, while the model's cross-validated R² stays under min_r2),
// confirm the survivors in predicted order within a budget, then re-measure the winner and the
// runner-up interleaved before declaring a best. Nothing is measured twice except by those
// deliberate re-measurements; a stored measurement counts as measured.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rpl/autotune/measurement.hpp>
#include <rpl/autotune/model.hpp>
#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

struct TuneOptions {
  uint64_t seed = 1;
  double seed_fraction = 0.1;
  size_t seed_floor = 10;
  double prune_factor = 1.75;
  double min_r2 = 0.75;            // compared with the cross-validated R²
  int explore_rounds = 3;          // further batches while the model is weak
  std::optional<size_t> budget;    // distinct configurations to measure, at most
  double budget_fraction = 0.2;    // of the space, when budget is not given
  int workers = 1;                 // measure at once; the search does not depend on it
  size_t confirm_batch = 8;        // survivors measured between refits of the model
  bool maximize = false;           // the objective is a figure to maximize (--maximize)
  size_t top_k = 5;
  int remeasure_rounds = 2;        // interleaved re-measurements of the winner and runner-up
};

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
  std::string phase;     // seed, explore, confirm
  bool cached = false;   // taken from the store, not run now
  Measurement measurement;
};

struct Remeasurement {
  size_t configuration = 0;
  std::vector<Measurement> rounds;
  double value = 0;      // median of the first measurement and the rounds that succeeded
  bool stable = false;   // any of them stable
};

struct TuneProgress {
  std::string phase;
  size_t done = 0;       // distinct configurations measured
  size_t planned = 0;    // the budget
  size_t workers = 1;
  size_t busy = 0;       // workers measuring now
  std::optional<double> best_value;
  double elapsed_seconds = 0;
};

struct TuneResult {
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
  ModelFit model;                                // the fit that pruned
  ModelFit final_model;                          // refitted on every measurement, at the end
  bool model_trusted = false;
  double prune_factor_used = 0;
  size_t survivors = 0;                          // after pruning, unmeasured
  size_t pruned = 0;                             // unmeasured configurations the prune removed
  size_t explore_rounds = 0;
  std::vector<std::string> warnings;             // low_model_confidence, ...
  bool interrupted = false;
  std::map<size_t, double> final_value;          // value used for ranking (re-measured where it was)

  size_t measured_in(const std::string& phase) const;
  std::map<Failure, size_t> failures() const;
};

using ProgressCallback = std::function<void(const TuneProgress&)>;

/// Runs the search. Error(run_failed) is not thrown for failing configurations: they are
/// recorded; the result has no best when every one failed. An interruption (cancel) stops at the
/// next measurement boundary with interrupted set.
TuneResult tune(const SearchSpace& space, Evaluator& evaluator, MeasurementStore& store, const TuneOptions& options,
                const ProgressCallback& progress = {}, const std::atomic<bool>* cancel = nullptr);

}  // namespace rpl::autotune
