#pragma once
// Measurements as CSV (--csv FILE): one row per configuration measured, in the order measured.
// The same file replays a tuning run without running anything (--replay FILE): the tuner's
// offline twin, used to compare search strategies on one exhaustive measurement of a space.
#include <filesystem>
#include <map>
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
/// not a configuration of the space are counted in `unknown`. Error(bad_input) naming the file
/// for a file that is not such a CSV.
std::map<size_t, Measurement> read_measurements_csv(const std::filesystem::path& file, const SearchSpace& space,
                                                    size_t& unknown);

/// An evaluator that answers from recorded measurements; a configuration not recorded is a
/// no_metric failure. Re-measurements return the same figure.
class RecordedEvaluator : public Evaluator {
 public:
  explicit RecordedEvaluator(std::map<size_t, Measurement> recorded) : recorded_(std::move(recorded)) {}
  Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) override;

 private:
  std::map<size_t, Measurement> recorded_;
};

}  // namespace rpl::autotune
