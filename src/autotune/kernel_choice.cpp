#include "kernel_choice.hpp"

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/analysis/short_names.hpp>
#include <rpl/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rpl::autotune {
namespace {

// The kernel to tune is fixed by the first run only where it dominates that run clearly: a check
// against a library that takes nearly as long could as well be the larger where the tuned kernel
// is fast, and the whole tuning would then time the check. groups: largest first.
void check_unambiguous(const std::vector<analysis::KernelGroup>& groups, const analysis::KernelGroup& dominant,
                       const std::string& name) {
  for (const auto& group : groups) {
    if (group.runtime_helper || analysis::kernel_function_name(group.display_name) == name) continue;
    if (2 * group.total_ns <= dominant.total_ns) return;  // the largest other: clear
    throw KernelAmbiguous(Errc::bad_input,
                          fmt::format("the first configuration measured ran {} for {:.3f} ms and {} for {:.3f} ms, too close to "
                                      "tell which one the configurations tune: name the kernel to tune with --kernel",
                                      analysis::short_kernel_name(dominant.display_name), dominant.total_ns / 1e6,
                                      analysis::short_kernel_name(group.display_name), group.total_ns / 1e6));
  }
}

}  // namespace

KernelChoice::KernelChoice(std::optional<std::string> regex) : regex_(std::move(regex)) {
  if (regex_) matcher_ = analysis::compile_kernel_regex(*regex_);
}

void KernelChoice::remember(std::optional<std::string> function, std::function<void(const std::string&)> fixed) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (function) tally_.kernel = *function;
  fixed_ = std::move(fixed);
}

std::vector<int32_t> KernelChoice::choose(const trace::Trace& trace) {
  // The largest kernel the regex matches, or the dominant one, with select_dominant_kernel's errors.
  const auto chosen = analysis::select_dominant_kernel(trace, regex_).kernel;
  const std::string name = analysis::kernel_function_name(chosen.display_name);
  const auto groups = analysis::group_by_kernel(trace);
  std::lock_guard<std::mutex> guard(mutex_);
  if (regex_) {
    ++tally_.runs;
    // For the record, the function the regex chose, where it chose the same one in every run
    // (with several workers, which run is first is not fixed).
    if (tally_.runs == 1) {
      tally_.kernel = name;
    } else if (tally_.kernel != name) {
      tally_.kernel.clear();
    }
    note_other_matches(groups, chosen, name);
    return chosen.dispatches;
  }
  if (tally_.kernel.empty()) {
    check_unambiguous(groups, chosen, name);
    tally_.kernel = name;
    if (fixed_) fixed_(name);
  }
  if (name == tally_.kernel) {
    ++tally_.runs;
    return chosen.dispatches;
  }
  for (const auto& group : groups) {
    if (analysis::kernel_function_name(group.display_name) != tally_.kernel) continue;
    ++tally_.runs;
    ++tally_.not_dominant;
    if (tally_.first_dominant.empty()) tally_.first_dominant = analysis::short_kernel_name(chosen.display_name);
    return group.dispatches;  // groups come largest first
  }
  fail(Errc::bad_input, "{}, the kernel this tuning measures (the dominant one where it was first measured), did not run; {} was "
                        "the dominant kernel: name the kernel to tune with --kernel (a regular expression: it may match the kernel of "
                        "every configuration)",
       tally_.kernel, analysis::short_kernel_name(chosen.display_name));
}

void KernelChoice::note_other_matches(const std::vector<analysis::KernelGroup>& groups, const analysis::KernelGroup& chosen,
                                      const std::string& name) {
  std::vector<std::string> others;
  for (const auto& group : groups) {
    if (analysis::kernel_matches(group, *matcher_) && analysis::kernel_function_name(group.display_name) != name) {
      others.push_back(analysis::short_kernel_name(group.display_name));
    }
  }
  if (!others.empty() && tally_.several_matched++ == 0) {
    tally_.first_matched = fmt::format("{}, {}", analysis::short_kernel_name(chosen.display_name), fmt::join(others, ", "));
  }
}

bool KernelChoice::fixed() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return regex_ || !tally_.kernel.empty();
}

KernelTally KernelChoice::tally() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return tally_;
}

}  // namespace rpl::autotune
