#pragma once
// Where local search expects a wall of failures (too many threads, too much shared memory): the
// rule bayes leaves steps out by, apart so that it can be tested on its own.
#include <cstddef>
#include <span>

#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

/// How many values of parameter p one step of local search may cross: one, or a fifth of the
/// values where there are many.
long step_reach(const SearchSpace& space, size_t p);

/// Whether the single step from anchor to c reaches or passes, along its parameter, one of the
/// failed configurations on c's row (every other parameter as c's) or on a row beside it (one other
/// parameter a step off). A wall met on one row is met on the next one too; a failure off c's row
/// in two parameters or more says little about it (a Triton matmul's wall of shared memory runs
/// diagonally, BK against BM + BN, and its fastest block lies one step from such a failure).
bool steps_past_a_failure(const SearchSpace& space, size_t c, size_t anchor, std::span<const size_t> failures);

}  // namespace rpl::autotune
