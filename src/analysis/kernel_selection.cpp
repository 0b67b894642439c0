#include <rpl/analysis/kernel_selection.hpp>

#include <algorithm>
#include <map>
#include <regex>

#include <rpl/core/error.hpp>

namespace rpl::analysis {

bool is_runtime_helper(std::string_view name) {
  // Demangled names of templates carry their return type first ("void __amd_rocclr_copyBuffer<...>").
  if (name.rfind("void ", 0) == 0) name.remove_prefix(5);
  return name.rfind("__amd_rocclr_", 0) == 0 || name.rfind("hip", 0) == 0 || name.rfind("hsa_", 0) == 0;
}

std::string exact_name_regex(std::string_view name) {
  std::string out = "^";
  for (char c : name) {
    if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out + "$";
}

std::regex compile_kernel_regex(const std::string& regex) {
  try {
    return std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    fail(Errc::bad_input, "--kernel '{}': not a valid regular expression ({})", regex, e.what());
  }
}

bool kernel_matches(const KernelGroup& group, const std::regex& regex) {
  return std::regex_search(group.display_name, regex) || std::regex_search(group.mangled_name, regex);
}

std::vector<KernelGroup> group_by_kernel(const trace::Trace& trace) {
  // First per symbol (cheap, indexed), then symbols of the same kernel across runs and processes.
  struct PerSymbol {
    std::vector<int32_t> dispatches;
    int64_t total_ns = 0;
    int32_t longest = -1;
    int64_t longest_ns = -1;
  };
  std::vector<PerSymbol> per_symbol(trace.symbols.size());
  for (int32_t i = 0; i < static_cast<int32_t>(trace.dispatches.size()); ++i) {
    const auto& d = trace.dispatches[i];
    auto& s = per_symbol[d.symbol];
    const int64_t ns = d.duration_ns();
    s.dispatches.push_back(i);
    s.total_ns += ns;
    if (ns > s.longest_ns) {
      s.longest_ns = ns;
      s.longest = i;
    }
  }
  std::map<std::string, KernelGroup> groups;
  for (size_t sym = 0; sym < trace.symbols.size(); ++sym) {
    auto& s = per_symbol[sym];
    if (s.dispatches.empty()) continue;
    const auto& symbol = trace.symbols[sym];
    const std::string& key = symbol.mangled_name.empty() ? symbol.display_name : symbol.mangled_name;
    auto [it, inserted] = groups.try_emplace(key);
    KernelGroup& g = it->second;
    if (inserted) {
      g.mangled_name = symbol.mangled_name;
      g.display_name = symbol.name();
      g.runtime_helper = is_runtime_helper(symbol.name()) || is_runtime_helper(symbol.mangled_name);
      g.longest_ns = -1;
    }
    g.total_ns += s.total_ns;
    if (s.longest_ns > g.longest_ns ||
        (s.longest_ns == g.longest_ns && s.longest < g.longest_dispatch)) {
      g.longest_ns = s.longest_ns;
      g.longest_dispatch = s.longest;
    }
    g.dispatches.insert(g.dispatches.end(), s.dispatches.begin(), s.dispatches.end());
  }
  std::vector<KernelGroup> out;
  out.reserve(groups.size());
  for (auto& [key, g] : groups) {
    std::sort(g.dispatches.begin(), g.dispatches.end());
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelGroup& a, const KernelGroup& b) {
    return a.total_ns > b.total_ns;  // ties keep the map's name order
  });
  return out;
}

KernelSelection select_dominant_kernel(const trace::Trace& trace, const std::optional<std::string>& kernel_regex) {
  if (trace.dispatches.empty()) {
    std::string files;
    for (const auto& source : trace.sources) files += (files.empty() ? "" : ", ") + source.path;
    // What the readers said of the files (an export made without CUDA tracing, say) is why.
    std::string why;
    for (const auto& w : trace.warnings) why += "; " + w;
    fail(Errc::bad_input, "{}: no kernel dispatches recorded in {}{}", files.empty() ? "(no trace)" : files,
         trace.sources.size() == 1 ? "this trace" : "any of these traces", why);
  }
  auto groups = group_by_kernel(trace);
  KernelSelection sel;
  for (const auto& g : groups) sel.all_kernels_ns += g.total_ns;

  const KernelGroup* chosen = nullptr;
  if (kernel_regex) {
    const std::regex re = compile_kernel_regex(*kernel_regex);
    for (const auto& g : groups) {
      if (kernel_matches(g, re)) {
        chosen = &g;  // groups are sorted by total time: the first match is the largest
        break;
      }
    }
    if (!chosen) {
      fail(Errc::bad_input, "--kernel '{}' matches none of the {} kernels in the trace", *kernel_regex, groups.size());
    }
  } else {
    for (const auto& g : groups) {
      if (!g.runtime_helper) {
        chosen = &g;
        break;
      }
    }
    if (!chosen) {
      // Only runtime helpers ran: fall back to the one with the longest single dispatch.
      chosen = &*std::max_element(groups.begin(), groups.end(), [](const KernelGroup& a, const KernelGroup& b) {
        return a.longest_ns < b.longest_ns;
      });
      sel.warnings.push_back(fmt::format("every kernel in the trace is a runtime helper; selected the longest, {}",
                                         chosen->display_name));
    }
  }
  sel.kernel = *chosen;
  sel.time_fraction = sel.all_kernels_ns > 0 ? static_cast<double>(sel.kernel.total_ns) / sel.all_kernels_ns : 1.0;
  if (sel.time_fraction < 0.5 && groups.size() > 1) {
    sel.warnings.push_back(fmt::format(
        "the selected kernel holds only {:.1f} % of kernel time; no single kernel dominates this program",
        sel.time_fraction * 100));
  }
  return sel;
}

}  // namespace rpl::analysis
