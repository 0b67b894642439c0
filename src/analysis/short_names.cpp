#include <rpl/analysis/short_names.hpp>

#include <algorithm>

namespace rpl::analysis {
namespace {

constexpr size_t kLongArgument = 24;  // longer template arguments are cut to their name
constexpr size_t kArguments = 3;      // template arguments shown at most
const std::string kEllipsis = "\u2026";

bool opens(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
bool closes(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }

// Where the parameter list that ends the name begins (its '('), or npos.
size_t parameters_begin(std::string_view s) {
  size_t end = s.size();
  while (end > 0 && s[end - 1] == ' ') --end;
  if (end >= 6 && s.substr(end - 6, 6) == " const") end -= 6;
  if (end == 0 || s[end - 1] != ')') return std::string_view::npos;
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// s without every "(anonymous namespace)::".
std::string without_anonymous_namespaces(std::string s) {
  static const std::string kAnonymous = "(anonymous namespace)::";
  for (size_t at; (at = s.find(kAnonymous)) != std::string::npos;) s.erase(at, kAnonymous.size());
  return s;
}

// The text after the last space outside brackets: the name without its return type.
std::string_view without_return_type(std::string_view s) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (opens(s[i])) ++depth;
    if (closes(s[i])) --depth;
    if (s[i] == ' ' && depth == 0) start = i + 1;
  }
  return s.substr(start);
}

std::vector<std::string> top_level_arguments(std::string_view list) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i == list.size() || (list[i] == ',' && depth == 0)) {
      std::string_view a = list.substr(start, i - start);
      while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
      while (!a.empty() && a.back() == ' ') a.remove_suffix(1);
      out.emplace_back(a);
      start = i + 1;
    } else if (opens(list[i])) {
      ++depth;
    } else if (closes(list[i])) {
      --depth;
    }
  }
  return out;
}

// An argument without the namespaces of its leading name; whether it had to be cut.
std::pair<std::string, bool> shortened_argument(std::string a) {
  const size_t head = std::min(a.find_first_of("<({"), a.size());
  if (const size_t colons = a.rfind("::", head); colons != std::string::npos && colons < head) a.erase(0, colons + 2);
  if (a.size() <= kLongArgument && a.find_first_of("({") == std::string::npos) return {a, false};
  return {a.substr(0, a.find_first_of("<({")) + kEllipsis, true};
}

// The qualified name with its template arguments: no return type, parameters or anonymous namespaces.
std::string templated_name(std::string_view demangled) {
  const size_t params = parameters_begin(demangled);
  return without_anonymous_namespaces(
      std::string(without_return_type(params == std::string_view::npos ? demangled : demangled.substr(0, params))));
}

}  // namespace

std::string kernel_function_name(std::string_view demangled) {
  std::string name = templated_name(demangled);
  // Only the last argument list goes: an enclosing class's ("Outer<int>::kernel<4>") stays.
  if (name.empty() || name.back() != '>') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>') ++depth;
    if (name[i] == '<' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

std::string short_kernel_name(std::string_view demangled) {
  std::string name = templated_name(demangled);
  const size_t open = name.find('<');
  if (open == std::string::npos || name.back() != '>') return name;
  std::string out = name.substr(0, open) + "<";
  const auto arguments = top_level_arguments(std::string_view(name).substr(open + 1, name.size() - open - 2));
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i == kArguments) {
      out += ", " + kEllipsis;
      break;
    }
    const auto [argument, cut] = shortened_argument(arguments[i]);
    out += (i ? ", " : "") + argument;
    if (cut) break;
  }
  return out + ">";
}

std::string kernel_label(const std::string& name, NameStyle style) {
  return style == NameStyle::full_names ? name : short_kernel_name(name);
}

std::map<std::string, std::string> unique_short_names(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::map<std::string, std::vector<std::string>> by_short;
  for (const auto& n : names) by_short[short_kernel_name(n)].push_back(n);
  std::map<std::string, std::string> out;
  for (const auto& [short_name, fulls] : by_short) {
    for (size_t i = 0; i < fulls.size(); ++i) {
      out[fulls[i]] = fulls.size() == 1 ? short_name : short_name + " (" + std::to_string(i + 1) + " of " + std::to_string(fulls.size()) + ")";
    }
  }
  return out;
}

}  // namespace rpl::analysis
