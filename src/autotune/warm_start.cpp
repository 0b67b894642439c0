// Earlier runs as one warm start (TuneOptions::warm_start): a user who tuned a kernel at several
// sizes has several. Each run's costs are scaled so that its best costs what the first run's best
// does: a run at a larger size, slower everywhere, then does not stand for "slow" in the process's
// prior, and a single run stays as it was read, to the bit. The bayes strategy fits its prior to
// them all (a configuration measured in several runs is one noisy observation of it, as a
// re-measurement would be).
#include <algorithm>

#include <rpl/autotune/tuner.hpp>

namespace rpl::autotune {

void add_earlier_run(TuneOptions& options, const std::vector<std::pair<size_t, double>>& costs, const std::vector<size_t>& failures) {
  if (!costs.empty()) {
    double best = costs.front().second;
    size_t best_configuration = costs.front().first;
    for (const auto& [c, cost] : costs) {
      if (cost < best) best = cost, best_configuration = c;
    }
    options.warm_start_bests.push_back(best_configuration);
    // Scaled so that its best costs what the first run's does (the first run's costs as they are).
    const double scale = options.warm_start.empty() ? 1.0 : options.warm_start.front().second / best;
    for (const auto& [c, cost] : costs) options.warm_start.emplace_back(c, cost * scale);
    std::stable_sort(options.warm_start.begin(), options.warm_start.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  }
  auto& failed = options.warm_start_failures;
  failed.insert(failed.end(), failures.begin(), failures.end());
  std::sort(failed.begin(), failed.end());
  failed.erase(std::unique(failed.begin(), failed.end()), failed.end());
  std::erase_if(failed, [&](size_t f) {
    return std::any_of(options.warm_start.begin(), options.warm_start.end(), [&](const auto& w) { return w.first == f; });
  });
}

}  // namespace rpl::autotune
