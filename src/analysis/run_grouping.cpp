#include <rpl/analysis/run_grouping.hpp>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string>

namespace rpl::analysis {
namespace {

// "dir/run3_1234_results.db" -> "dir/run3"; nothing for a file profile did not name.
std::optional<std::string> profile_run_label(const std::string& path) {
  static const std::regex run_prefix(R"(^(run\d+)_)");
  const std::filesystem::path p(path);
  std::smatch m;
  const std::string name = p.filename().string();
  if (!std::regex_search(name, m, run_prefix)) return std::nullopt;
  return (p.parent_path() / m[1].str()).string();
}

struct Span {
  int64_t start = std::numeric_limits<int64_t>::max();
  int64_t end = std::numeric_limits<int64_t>::min();
  bool empty() const { return start > end; }
};

}  // namespace

RunGrouping group_runs(const trace::Trace& trace) {
  const size_t n = trace.sources.size();
  RunGrouping g;
  g.run_of_source.assign(n, -1);
  for (const auto& source : trace.sources) g.processes += std::max<int>(1, static_cast<int>(source.guids.size()));

  std::vector<Span> spans(n);
  for (const auto& d : trace.dispatches) {
    auto& s = spans[static_cast<size_t>(d.source)];
    s.start = std::min(s.start, d.start_ns);
    s.end = std::max(s.end, d.end_ns);
  }

  std::map<std::string, int> labelled;  // label -> run
  std::vector<size_t> unlabelled;
  for (size_t i = 0; i < n; ++i) {
    if (auto label = profile_run_label(trace.sources[i].path)) {
      auto [it, inserted] = labelled.try_emplace(*label, g.runs);
      if (inserted) ++g.runs;
      g.run_of_source[i] = it->second;
    } else {
      unlabelled.push_back(i);
    }
  }
  // Sweep the other files in order of their first dispatch; one that starts before the current
  // group's last dispatch ends ran at the same time, in the same run.
  std::stable_sort(unlabelled.begin(), unlabelled.end(),
                   [&](size_t a, size_t b) { return spans[a].start < spans[b].start; });
  int64_t group_end = std::numeric_limits<int64_t>::min();
  bool open_group = false;
  for (size_t i : unlabelled) {
    const Span& s = spans[i];
    if (!open_group || s.empty() || s.start > group_end) {
      ++g.runs;
      group_end = std::numeric_limits<int64_t>::min();
    }
    g.run_of_source[i] = g.runs - 1;
    open_group = !s.empty();
    if (!s.empty()) group_end = std::max(group_end, s.end);
  }
  return g;
}

}  // namespace rpl::analysis
