#include <rpl/analysis/tool_findings.hpp>

#include <algorithm>
#include <map>
#include <tuple>

namespace rpl::analysis {

std::vector<KernelFinding> kernel_findings(const trace::Trace& trace, const std::string& kernel) {
  using Key = std::tuple<std::string, std::string, size_t>;  // section, rule, its place in the launch
  std::map<Key, size_t> index;
  std::vector<KernelFinding> out;
  std::map<std::pair<std::string, std::string>, size_t> seen;  // in the current launch
  std::optional<uint32_t> launch;
  for (const auto& f : trace.findings) {
    const auto symbol = f.dispatch < trace.dispatches.size() ? trace.dispatches[f.dispatch].symbol : -1;
    if (symbol < 0 || trace.symbols[static_cast<size_t>(symbol)].name() != kernel) continue;
    if (launch != f.dispatch) {
      launch = f.dispatch;
      seen.clear();
    }
    const Key key{f.section, f.rule, seen[{f.section, f.rule}]++};
    auto [it, added] = index.try_emplace(key, out.size());
    if (added) out.push_back({f.section, f.rule, f.type, f.text, f.speedup_kind, f.speedup_percent, 0});
    auto& k = out[it->second];
    ++k.launches;
    if (f.speedup_percent && (!k.speedup_percent || *f.speedup_percent > *k.speedup_percent)) {
      k.speedup_percent = f.speedup_percent;
      k.speedup_kind = f.speedup_kind;
      k.text = f.text;
      k.type = f.type;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelFinding& a, const KernelFinding& b) {
    return a.speedup_percent.value_or(-1) > b.speedup_percent.value_or(-1);
  });
  return out;
}

}  // namespace rpl::analysis
