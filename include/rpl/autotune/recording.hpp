#pragma once
// Measurements as CSV (--csv FILE): one row per configuration measured, in the order measured.
// The same file replays a tuning run without running anything (--replay FILE): the tuner's
// offline twin, used to compare search strategies on one exhaustive measurement of a space.
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <rpl/autotune/measurement.hpp>
#include <rpl/autotune/search_space.hpp>
#include <rpl/autotune/tuner.hpp>

namespace rpl::autotune {

/// The CSV text of a result's measurements (header: order, phase, cached, the parameters,
/// failure, value, cv, samples, runs, seconds, detail).
std::string measurements_csv(const SearchSpace& space, const TuneResult& result);

/// Reads such a CSV into measurements per configuration of the space; rows whose parameters are
/// not a configuration of the space are counted in `unknown`. The seconds column may be absent
/// (then every measurement's seconds are 0). Error(bad_input) naming the file for a file that is
/// not such a CSV.
std::map<size_t, Measurement> read_measurements_csv(const std::filesystem::path& file, const SearchSpace& space,
                                                    size_t& unknown);

/// An evaluator that answers from recorded measurements; a configuration not recorded is a
/// no_metric failure. Re-measurements return the same figure.
class RecordedEvaluator : public Evaluator {
 public:
  explicit RecordedEvaluator(std::map<size_t, Measurement> recorded) : recorded_(std::move(recorded)) {}
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) override;
  bool replays_recorded_time() const override { return true; }

 private:
  std::map<size_t, Measurement> recorded_;
};

/// Samples drawn around a recorded measurement with its recorded spread: value x (1 + cv z), z a
/// standard normal cut at +-3, as many as it had (at least one). The draw depends only on seed.
std::vector<double> noisy_samples(const Measurement& recorded, uint64_t seed);

/// An evaluator that answers from recorded measurements with their measured noise: each call
/// draws anew (noisy_samples, seeded by the seed, the configuration and how often it was asked),
/// so that re-measurements differ as real ones do. A configuration not recorded is no_metric;
/// a recorded failure stays one.
class NoisyRecordedEvaluator : public Evaluator {
 public:
  NoisyRecordedEvaluator(std::map<size_t, Measurement> recorded, uint64_t seed) : recorded_(std::move(recorded)), seed_(seed) {}
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) override;
  bool replays_recorded_time() const override { return true; }

 private:
  std::map<size_t, Measurement> recorded_;
  uint64_t seed_;
  std::mutex mutex_;
  std::map<size_t, uint64_t> calls_;
};

}  // namespace rpl::autotune
