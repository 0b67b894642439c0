#pragma once
// What changed between two profiles of a program, kernel by kernel, and whether each change is
// beyond the noise the two profiles measured (docs/diff.md).
#include <optional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

/// One kernel's GPU time in one profile.
struct KernelTimes {
  std::string name;
  std::vector<double> run_ms;       // its total time in each run (0 where it did not run)
  size_t dispatches = 0;            // over all runs
  double dispatch_stddev_ms = 0;    // of its dispatch durations (n - 1; 0 for one dispatch)
  double per_run_ms() const;        // mean of run_ms
};

struct ProfileTimes {
  int runs = 0;
  std::vector<KernelTimes> kernels;  // by name
  double per_run_ms() const;         // all kernels' time in a run, on average
};

/// Per kernel, its time in each run of the trace (runs as analysis::group_runs finds them).
ProfileTimes kernel_times(const trace::Trace& trace);

struct KernelSide {
  double per_run_ms = 0;
  double share = 0;                 // of all kernels' time in a run
  double dispatches_per_run = 0;
};

enum class Verdict { faster, slower, unchanged, added, removed };
const char* verdict_name(Verdict v);

struct KernelChange {
  std::string name;
  std::optional<KernelSide> before, after;
  double change_pct = 0;            // (after - before) / before, percent; 0 for added or removed kernels
  /// Three standard errors of the difference, from both profiles: the larger of the run-to-run
  /// spread and the dispatch-to-dispatch spread of each. Percent of before; none where neither
  /// profile measured any spread (one dispatch in one run), and then any change counts.
  std::optional<double> noise_pct;
  Verdict verdict = Verdict::unchanged;
};

/// Whether after's samples (times of one thing measured repeatedly, such as a replayed kernel's
/// median per replay) differ from before's beyond noise, by the same test as compare_kernel_times:
/// Student's t at Welch's degrees of freedom. Each side needs two samples or more.
struct SampleChange {
  double before_mean = 0, after_mean = 0;
  double change_pct = 0;
  std::optional<double> noise_pct;  // none where neither side varied
  Verdict verdict = Verdict::unchanged;
};
SampleChange compare_samples(const std::vector<double>& before, const std::vector<double>& after);

/// The kernels of both profiles, the ones with the most time first (then by name).
std::vector<KernelChange> compare_kernel_times(const ProfileTimes& before, const ProfileTimes& after);

}  // namespace rpl::analysis
