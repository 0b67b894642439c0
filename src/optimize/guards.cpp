#include <rpl/optimize/guards.hpp>

#include <fmt/format.h>

namespace rpl::optimize {
namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool inside(TextRange r, size_t begin, size_t end) { return r.begin >= begin && r.end <= end; }

// A preprocessor line other than #pragma in text: it could change what the rest of the file means.
std::string directive_in(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t eol = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, eol - at);
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '#' && line.substr(first).rfind("#pragma", 0) != 0) {
      return std::string(line.substr(first));
    }
    at = eol + 1;
  }
  return "";
}

}  // namespace

GuardVerdict check_source_guards(const KernelSource& original, const KernelDefinition& kernel, const KernelSource& candidate) {
  const std::string& a = original.text;
  const std::string& c = candidate.text;
  // original = prefix + definition + suffix; the candidate must keep prefix and suffix.
  const size_t prefix = kernel.definition.begin, suffix = a.size() - kernel.definition.end;
  if (c.size() < prefix + suffix || c.compare(0, prefix, a, 0, prefix) != 0 ||
      c.compare(c.size() - suffix, suffix, a, kernel.definition.end, suffix) != 0) {
    return {"unchanged_rest", "the file outside the kernel's definition changed"};
  }
  const size_t begin = prefix, end = c.size() - suffix;
  if (auto d = directive_in(std::string_view(c).substr(begin, end - begin)); !d.empty()) {
    return {"unchanged_rest", fmt::format("the new definition adds a preprocessor line: {}", d)};
  }
  const KernelDefinition* found = nullptr;
  for (const auto& k : candidate.kernels) {
    if (!inside(k.definition, begin, end)) continue;
    if (k.name != kernel.name || found) return {"unchanged_rest", fmt::format("the new definition adds a kernel ({})", k.name)};
    found = &k;
  }
  if (!found) return {"signature", fmt::format("no definition of the kernel {} in the candidate", kernel.name)};
  for (const auto& f : candidate.functions) {
    if (inside(f.definition, begin, end) && !f.device_only) {
      return {"unchanged_rest", fmt::format("the new definition adds {}, which is not a __device__ function", f.name)};
    }
  }
  for (const auto& o : candidate.others) {
    if (inside(o.range, begin, end)) return {"unchanged_rest", fmt::format("the new definition adds a declaration ({})", o.description)};
  }
  if (found->template_parameters != kernel.template_parameters) {
    return {"signature", fmt::format("template parameters '{}' instead of '{}'", found->template_parameters, kernel.template_parameters)};
  }
  if (found->parameter_types != kernel.parameter_types) {
    return {"signature", fmt::format("parameters ({}) instead of ({})", joined(found->parameter_types), joined(kernel.parameter_types))};
  }
  if (found->mangled_name != kernel.mangled_name) {
    return {"signature", fmt::format("mangled name {} instead of {}", found->mangled_name, kernel.mangled_name)};
  }
  return {};
}

GuardVerdict check_parameters_read(const KernelSource& original, const KernelDefinition& kernel, const KernelSource& candidate,
                                   const std::set<std::string>& allowed) {
  const size_t begin = kernel.definition.begin, end = candidate.text.size() - (original.text.size() - kernel.definition.end);
  const KernelDefinition* found = nullptr;
  for (const auto& k : candidate.kernels) {
    if (k.name == kernel.name && inside(k.definition, begin, end)) found = &k;
  }
  if (!found) return {};
  std::vector<std::string> ignored;
  for (size_t i = 0; i < kernel.parameters.size() && i < found->parameters.size(); ++i) {
    const auto& p = kernel.parameters[i];
    if (p.read && !found->parameters[i].read && !allowed.count(p.name)) ignored.push_back(p.name.empty() ? fmt::format("#{}", i + 1) : p.name);
  }
  if (ignored.empty()) return {};
  const std::string names = joined(ignored);
  return {"ignores_parameter",
          fmt::format("it no longer reads {} {}, which the original reads: the kernel would be right only for the value "
                      "captured in the oracle (--allow-unused-param {} accepts it)",
                      ignored.size() == 1 ? "the parameter" : "the parameters", names, ignored.front())};
}

}  // namespace rpl::optimize
