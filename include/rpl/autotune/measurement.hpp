#pragma once
// One configuration's measurement: repeated until stable, or why it failed.
#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::autotune {

/// Why a configuration has no usable figure (Kernel Tuner's and T4's invalidity kinds, refined).
/// node_failed: the step's node failed it (Slurm ended the step) on every try; not the configuration's
/// own failure, so it is never cached and a later run measures it again.
enum class Failure { none, build_failed, launch_failed, crashed, timed_out, no_kernel, unstable, no_metric, node_failed };
std::string_view failure_name(Failure failure);
std::optional<Failure> failure_from_name(std::string_view name);
inline constexpr Failure kFailureKinds[] = {Failure::build_failed, Failure::launch_failed, Failure::crashed,
                                            Failure::timed_out,    Failure::no_kernel,     Failure::unstable,
                                            Failure::no_metric,    Failure::node_failed};

/// When to stop repeating: at least min_samples and a coefficient of variation within max_cv or a
/// median settled (median_settled), or max_runs runs of the program, or max_seconds spent.
struct StabilityPolicy {
  double max_cv = 0.05;
  int min_samples = 5;
  int max_runs = 10;
  double max_seconds = 60;
};

struct Measurement {
  Failure failure = Failure::none;
  std::string detail;   // a failure's cause in a line
  double value = 0;     // the median sample, in the objective's unit (ms for times)
  double cv = 0;        // sample standard deviation / mean
  int samples = 0;
  int runs = 0;         // program runs
  double seconds = 0;   // wall time spent on it (its build and runs)
  double build_seconds = 0;  // the part of seconds its build took (0 where the build was already made)
  bool stable = false;  // cv within the policy's max_cv
  bool interrupted = false;  // stopped by a signal: not a result, never stored
  bool ok() const { return failure == Failure::none; }
};

/// Sets value, cv, samples and stable from the samples (none: value 0, not stable).
void summarize_samples(std::vector<double> samples, double max_cv, Measurement& m);

/// Whether more samples would hardly move the median: its standard error (1.25 sd / sqrt(samples)
/// for normal noise) within a fifth of max_cv. Launches of a kernel of tens of microseconds can
/// spread beyond max_cv in every run; their median settles all the same.
bool median_settled(const Measurement& m, double max_cv);

/// Measures configurations (indices into a search space) on workers (0 .. workers-1). Safe to call
/// from one thread per worker at once.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// A measurement or a failure; throws Error only for what stops the whole tuning run (a tool
  /// that refuses to run). When *cancel becomes true it returns soon, marked interrupted.
  virtual Measurement measure(size_t configuration, int worker, const std::atomic<bool>* cancel) = 0;
  /// Whether it answers from a recording instead of running anything: then a measurement's seconds
  /// are the time it took when recorded, and a time budget spends those (as Kernel Tuner's
  /// simulation mode does), not the replay's own few microseconds.
  virtual bool replays_recorded_time() const { return false; }
  /// Whether the next measurement fixes what later ones measure (the kernel timed): it then runs
  /// before any other starts, so that with several workers the configuration that fixes it is the
  /// first measured, not the first to finish.
  virtual bool next_measurement_fixes_the_objective() const { return false; }
};

}  // namespace rpl::autotune
