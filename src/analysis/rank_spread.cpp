#include <rpl/analysis/rank_spread.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <rpl/analysis/run_grouping.hpp>

namespace rpl::analysis {

std::optional<RankSpread> rank_spread(const trace::Trace& trace, const std::string& mangled_name) {
  std::map<int, RankTime> by_rank;
  std::set<std::string> hosts;
  for (const auto& d : trace.dispatches) {
    if (d.symbol < 0 || trace.symbols[static_cast<size_t>(d.symbol)].mangled_name != mangled_name) continue;
    const auto& source = trace.sources[static_cast<size_t>(d.source)];
    if (!source.rank) continue;
    auto& r = by_rank[*source.rank];
    r.rank = *source.rank;
    r.host = source.host;
    r.dispatches_per_run += 1;
    r.per_run_ms += static_cast<double>(d.end_ns - d.start_ns) / 1e6;
    hosts.insert(source.host);
  }
  if (by_rank.size() < 2) return std::nullopt;
  const double runs = std::max(1, group_runs(trace).runs);
  RankSpread out;
  for (auto& [rank, r] : by_rank) {
    r.dispatches_per_run /= runs;
    r.per_run_ms /= runs;
    out.mean_ms += r.per_run_ms / static_cast<double>(by_rank.size());
    out.ranks.push_back(r);
  }
  const auto slowest = std::max_element(out.ranks.begin(), out.ranks.end(),
                                        [](const RankTime& a, const RankTime& b) { return a.per_run_ms < b.per_run_ms; });
  out.slowest_rank = slowest->rank;
  out.imbalance_pct = out.mean_ms > 0 ? (slowest->per_run_ms / out.mean_ms - 1) * 100 : 0;
  out.hosts = hosts.size();
  return out;
}

}  // namespace rpl::analysis
