#pragma once
// Which kernel's dispatches a kernel_time objective measures in each run's trace.
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/autotune/process_evaluator.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/model.hpp>

namespace rpl::autotune {

/// The first run's trace cannot say which kernel is tuned: another function took more than half
/// the dominant one's GPU time. It stops the tuning run (exit 2) before any figure is recorded.
struct KernelAmbiguous : Error {
  using Error::Error;
};

/// With --kernel, the largest kernel the regex matches (where it matches kernels of several
/// functions, the tally counts the run: the largest may be another function's elsewhere). Without
/// it, the dominant kernel of the first run measured fixes the kernel by its function name
/// (configurations change its template arguments, not its name): later runs measure that kernel
/// even where another takes more GPU time, as a program's check against a library can where the
/// tuned kernel is fast. Safe to call from several workers at once.
class KernelChoice {
 public:
  /// Error(bad_input) for a regex that is none.
  explicit KernelChoice(std::optional<std::string> regex);
  /// The function name fixed by an earlier run of the same scope, and whom to tell when this run
  /// fixes it.
  void remember(std::optional<std::string> function, std::function<void(const std::string&)> fixed);
  /// The dispatches whose durations are this run's samples. Error(bad_input) when the trace has
  /// none, the regex matches no kernel, or the kernel fixed did not run; KernelAmbiguous.
  std::vector<int32_t> choose(const trace::Trace& trace);
  KernelTally tally() const;
  /// Whether each run's kernel is known before it ends: --kernel given, or a function fixed.
  bool fixed() const;

 private:
  /// With --kernel, counts the run where the regex also matched other functions than `name`'s
  /// (mutex_ held).
  void note_other_matches(const std::vector<analysis::KernelGroup>& groups, const analysis::KernelGroup& chosen,
                          const std::string& name);

  std::optional<std::string> regex_;
  std::optional<std::regex> matcher_;
  std::function<void(const std::string&)> fixed_;
  mutable std::mutex mutex_;
  KernelTally tally_;
};

}  // namespace rpl::autotune
