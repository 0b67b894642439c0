#pragma once
// A multi-rank job's load imbalance: the dominant kernel's time on each rank (each process whose
// database names a rank: srun's, Open MPI's or another PMI launcher's), the slowest rank and the
// spread across ranks.
#include <optional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::analysis {

struct RankTime {
  int rank = 0;
  std::string host;
  double dispatches_per_run = 0;
  double per_run_ms = 0;  // the kernel's GPU time on this rank in one run, on average
};

struct RankSpread {
  std::vector<RankTime> ranks;  // by rank
  int slowest_rank = 0;
  double mean_ms = 0;
  double imbalance_pct = 0;     // how much longer the slowest rank takes than the mean
  size_t hosts = 0;
};

/// The spread of the kernel (by mangled name) across ranks; none where fewer than two ranks ran it.
std::optional<RankSpread> rank_spread(const trace::Trace& trace, const std::string& mangled_name);

}  // namespace rpl::analysis
