#pragma once
// The tuner's budget as a user writes it (--budget): a count of configurations ("45"), a fraction
// or a percentage of the space ("0.2", "20%"), or a time ("90s", "20m", "1h30m").
#include <string>

#include <rpl/autotune/tuner.hpp>

namespace rpl::autotune {

/// Sets options' budget, budget_fraction or time_budget_seconds from text. Error(bad_input) saying
/// which forms are understood for anything else.
void apply_budget(const std::string& text, TuneOptions& options);

}  // namespace rpl::autotune
