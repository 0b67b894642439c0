#include <rpl/autotune/search_space.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "digest.hpp"
#include "expressions.hpp"

namespace rpl::autotune {
namespace {

using ordered_json = nlohmann::ordered_json;

constexpr size_t kMaxRangeValues = 100'000;

// [A-Za-z_][A-Za-z0-9_]*, by hand: std::regex recurses per character and overflows the stack on
// long names (found by fuzzing).
bool valid_name(const std::string& name) {
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (name.empty() || !letter(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

std::string number_text(double v) {
  if (std::floor(v) == v && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

// {"min": 8, "max": 32, "step": 8} or {"min": 1, "max": 16, "factor": 2}, both ends included.
std::vector<Value> range_values(const ordered_json& range, const std::string& where) {
  for (const auto& [key, _] : range.items()) {
    if (key != "min" && key != "max" && key != "step" && key != "factor") {
      fail(Errc::bad_input, "{}: unknown key '{}' in a range (min, max, and step or factor)", where, key);
    }
  }
  auto number = [&](const char* key) -> std::optional<double> {
    if (!range.contains(key)) return std::nullopt;
    if (!range[key].is_number()) fail(Errc::bad_input, "{}: range '{}' is not a number", where, key);
    return range[key].get<double>();
  };
  const auto lo = number("min"), hi = number("max"), step = number("step"), factor = number("factor");
  if (!lo || !hi) fail(Errc::bad_input, "{}: a range needs min and max", where);
  if (*lo > *hi) fail(Errc::bad_input, "{}: range min {} is above max {}", where, *lo, *hi);
  if (step && factor) fail(Errc::bad_input, "{}: a range has step or factor, not both", where);
  std::vector<Value> values;
  auto add = [&](double v) {
    if (values.size() >= kMaxRangeValues) fail(Errc::bad_input, "{}: the range has more than {} values", where, kMaxRangeValues);
    values.push_back({number_text(v), v});
  };
  if (factor) {
    if (*factor <= 1 || *lo <= 0) fail(Errc::bad_input, "{}: a factor range needs factor > 1 and min > 0", where);
    for (double v = *lo; v <= *hi * (1 + 1e-12); v *= *factor) add(v);
  } else {
    const double s = step.value_or(1);
    if (s <= 0) fail(Errc::bad_input, "{}: range step {} is not positive", where, s);
    // Counted, not accumulated, so that 0.1 steps do not drift.
    const double count = std::floor((*hi - *lo) / s + 1e-9);
    if (!(count < static_cast<double>(kMaxRangeValues))) {
      fail(Errc::bad_input, "{}: the range has more than {} values", where, kMaxRangeValues);
    }
    for (long long i = 0; i <= static_cast<long long>(count); ++i) add(*lo + static_cast<double>(i) * s);
  }
  return values;
}

Parameter parse_parameter(const std::string& name, const ordered_json& spec, const std::string& origin) {
  const std::string where = fmt::format("{}: parameter {}", origin, name);
  if (!valid_name(name)) fail(Errc::bad_input, "{}: parameter name '{}' is not a name (letters, digits, _)", origin, name);
  Parameter p{name, {}};
  if (spec.is_object()) {
    p.values = range_values(spec, where);
  } else if (spec.is_array()) {
    for (const auto& v : spec) {
      auto value = value_from_json(v);
      if (!value) fail(Errc::bad_input, "{}: value {} is neither a number nor a string", where, v.dump());
      if (std::find(p.values.begin(), p.values.end(), *value) != p.values.end()) {
        fail(Errc::bad_input, "{}: value {} is listed twice", where, value->text);
      }
      p.values.push_back(*value);
    }
  } else {
    fail(Errc::bad_input, "{}: give a list of values or a range {{\"min\", \"max\", \"step\"}}", where);
  }
  if (p.values.empty()) fail(Errc::bad_input, "{}: no values", where);
  return p;
}

// A plain list of configurations: the parameters are the keys, their values those that occur.
std::vector<std::vector<uint32_t>> parse_listed(const ordered_json& list, const std::string& origin, SearchSpace& space) {
  if (list.empty()) fail(Errc::bad_input, "{}: the list of configurations is empty", origin);
  for (const auto& [key, _] : list.front().items()) {
    if (!valid_name(key)) fail(Errc::bad_input, "{}: parameter name '{}' is not a name (letters, digits, _)", origin, key);
    space.parameters.push_back({key, {}});
  }
  if (space.parameters.empty()) fail(Errc::bad_input, "{}: the first configuration has no parameters", origin);
  std::vector<std::vector<uint32_t>> listed;
  std::map<std::vector<uint32_t>, size_t> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& item = list[i];
    if (!item.is_object() || item.size() != space.parameters.size()) {
      fail(Errc::bad_input, "{}: configuration {} does not have the first one's {} parameters", origin, i + 1,
           space.parameters.size());
    }
    std::vector<uint32_t> config;
    for (auto& p : space.parameters) {
      if (!item.contains(p.name)) fail(Errc::bad_input, "{}: configuration {} lacks parameter {}", origin, i + 1, p.name);
      auto value = value_from_json(item[p.name]);
      if (!value) fail(Errc::bad_input, "{}: configuration {}: {} is neither a number nor a string", origin, i + 1, p.name);
      auto it = std::find(p.values.begin(), p.values.end(), *value);
      if (it == p.values.end()) it = p.values.insert(p.values.end(), *value);
      config.push_back(static_cast<uint32_t>(it - p.values.begin()));
    }
    if (auto [at, fresh] = seen.emplace(config, i); !fresh) {
      fail(Errc::bad_input, "{}: configurations {} and {} are the same", origin, at->second + 1, i + 1);
    }
    listed.push_back(std::move(config));
  }
  return listed;
}

}  // namespace

bool Parameter::numeric() const {
  return std::all_of(values.begin(), values.end(), [](const Value& v) { return v.number.has_value(); });
}

std::optional<Value> value_from_json(const nlohmann::json& v) {
  if (v.is_number_integer()) return Value{v.dump(), v.get<double>()};
  if (v.is_number_float()) return Value{number_text(v.get<double>()), v.get<double>()};
  if (v.is_string()) return Value{v.get<std::string>(), std::nullopt};
  return std::nullopt;
}

std::optional<std::string> SearchSpace::text(size_t c, const std::string& name) const {
  for (size_t p = 0; p < parameters.size(); ++p) {
    if (parameters[p].name == name) return value(c, p).text;
  }
  for (size_t d = 0; d < derived.size(); ++d) {
    if (derived[d].name == name) return number_text(derived_value(c, d));
  }
  return std::nullopt;
}

nlohmann::ordered_json SearchSpace::to_json(size_t c) const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (size_t p = 0; p < parameters.size(); ++p) {
    const Value& v = value(c, p);
    if (!v.number) out[parameters[p].name] = v.text;
    else if (std::floor(*v.number) == *v.number && std::fabs(*v.number) < 1e15) out[parameters[p].name] = static_cast<long long>(*v.number);
    else out[parameters[p].name] = *v.number;
  }
  return out;
}

std::optional<size_t> SearchSpace::find(const nlohmann::json& values) const {
  if (!values.is_object()) return std::nullopt;
  std::vector<uint32_t> wanted;
  for (const auto& p : parameters) {
    if (!values.contains(p.name)) return std::nullopt;
    auto v = value_from_json(values[p.name]);
    auto it = v ? std::find(p.values.begin(), p.values.end(), *v) : p.values.end();
    if (it == p.values.end()) return std::nullopt;
    wanted.push_back(static_cast<uint32_t>(it - p.values.begin()));
  }
  for (size_t c = 0; c < size(); ++c) {
    if (std::equal(wanted.begin(), wanted.end(), value_indices_.begin() + static_cast<long>(c * parameters.size()))) return c;
  }
  return std::nullopt;
}

std::vector<std::string> SearchSpace::names() const {
  std::vector<std::string> out;
  for (const auto& p : parameters) out.push_back(p.name);
  for (const auto& d : derived) out.push_back(d.name);
  return out;
}

std::string SearchSpace::digest() const {
  nlohmann::ordered_json doc;
  for (const auto& p : parameters) {
    auto& values = doc["parameters"][p.name] = nlohmann::ordered_json::array();
    for (const auto& v : p.values) values.push_back(v.text);
  }
  for (const auto& d : derived) doc["derived"][d.name] = d.expression;
  doc["constraints"] = constraints;
  doc["size"] = size();
  return sha256_hex(doc.dump());
}

void SearchSpace::enumerate(const std::vector<std::vector<uint32_t>>* listed, const std::string& origin,
                            uint64_t max_combinations) {
  const size_t np = parameters.size();
  // Numeric parameters and derived features are the expressions' variables.
  std::vector<double> numbers(np + derived.size(), 0.0);
  std::vector<std::pair<std::string, double*>> variables;
  for (size_t p = 0; p < np; ++p) {
    if (parameters[p].numeric()) variables.emplace_back(parameters[p].name, &numbers[p]);
  }
  std::vector<Expression> derived_exprs, constraint_exprs;
  for (size_t d = 0; d < derived.size(); ++d) {
    derived_exprs.emplace_back(derived[d].expression, variables, fmt::format("{}: derived feature {}", origin, derived[d].name));
    variables.emplace_back(derived[d].name, &numbers[np + d]);  // later ones may use it
  }
  for (const auto& c : constraints) constraint_exprs.emplace_back(c, variables, fmt::format("{}: constraint", origin));

  value_indices_.clear();
  derived_values_.clear();
  rejected = 0;
  auto consider = [&](const std::vector<uint32_t>& config) {
    for (size_t p = 0; p < np; ++p) {
      const auto& v = parameters[p].values[config[p]];
      numbers[p] = v.number.value_or(0);
    }
    for (size_t d = 0; d < derived.size(); ++d) numbers[np + d] = derived_exprs[d].evaluate();
    for (const auto& c : constraint_exprs) {
      const double ok = c.evaluate();
      if (ok == 0 || std::isnan(ok)) {
        ++rejected;
        return;
      }
    }
    // A value no template or model can use (a division by zero): the user says which to leave out.
    for (size_t d = 0; d < derived.size(); ++d) {
      if (std::isfinite(numbers[np + d])) continue;
      std::string where;
      for (size_t p = 0; p < np; ++p) {
        where += fmt::format("{}{}={}", p ? " " : "", parameters[p].name, parameters[p].values[config[p]].text);
      }
      const double v = numbers[np + d];
      fail(Errc::bad_input,
           "{}: derived feature {} is {} at {}, a configuration the constraints keep: add a constraint that leaves it out", origin,
           derived[d].name, std::isnan(v) ? "not a number" : v > 0 ? "inf" : "-inf", where);
    }
    value_indices_.insert(value_indices_.end(), config.begin(), config.end());
    derived_values_.insert(derived_values_.end(), numbers.begin() + static_cast<long>(np), numbers.end());
  };
  if (listed) {
    combinations = listed->size();
    for (const auto& config : *listed) consider(config);
  } else {
    combinations = 1;
    for (const auto& p : parameters) {
      combinations *= p.values.size();
      if (combinations > max_combinations) {
        fail(Errc::bad_input, "{}: the parameters make more than {} combinations; list fewer values", origin, max_combinations);
      }
    }
    std::vector<uint32_t> config(np, 0);
    for (uint64_t i = 0; i < combinations; ++i) {
      consider(config);
      for (size_t p = np; p-- > 0;) {  // odometer: the last parameter varies fastest
        if (++config[p] < parameters[p].values.size()) break;
        config[p] = 0;
      }
    }
  }
  if (size() == 0) {
    fail(Errc::bad_input, "{}: the constraints reject all {} configurations", origin, combinations);
  }
}

SearchSpace parse_search_space(const std::string& text, const std::string& origin, uint64_t max_combinations) {
  ordered_json doc;
  try {
    doc = ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers past double
    fail(Errc::bad_input, "{}: not JSON: {}", origin, e.what());
  }
  SearchSpace space;
  std::optional<std::vector<std::vector<uint32_t>>> listed;
  if (doc.is_array()) {
    listed = parse_listed(doc, origin, space);
  } else if (doc.is_object()) {
    for (const auto& [key, _] : doc.items()) {
      if (key != "parameters" && key != "configurations" && key != "derived" && key != "constraints" && key != "$schema") {
        fail(Errc::bad_input, "{}: unknown key '{}' (parameters, configurations, derived, constraints)", origin, key);
      }
    }
    if (doc.contains("parameters") == doc.contains("configurations")) {
      fail(Errc::bad_input, "{}: give either \"parameters\" or \"configurations\"", origin);
    }
    if (doc.contains("parameters")) {
      const auto& params = doc["parameters"];
      if (!params.is_object() || params.empty()) fail(Errc::bad_input, "{}: \"parameters\" must be a non-empty object", origin);
      for (const auto& [name, spec] : params.items()) space.parameters.push_back(parse_parameter(name, spec, origin));
    } else {
      if (!doc["configurations"].is_array()) fail(Errc::bad_input, "{}: \"configurations\" must be a list", origin);
      listed = parse_listed(doc["configurations"], origin, space);
    }
    if (doc.contains("derived")) {
      if (!doc["derived"].is_object()) fail(Errc::bad_input, "{}: \"derived\" must map names to expressions", origin);
      for (const auto& [name, expr] : doc["derived"].items()) {
        if (!valid_name(name)) fail(Errc::bad_input, "{}: derived feature name '{}' is not a name", origin, name);
        if (!expr.is_string()) fail(Errc::bad_input, "{}: derived feature {} must be an expression string", origin, name);
        space.derived.push_back({name, expr.get<std::string>()});
      }
    }
    if (doc.contains("constraints")) {
      if (!doc["constraints"].is_array()) fail(Errc::bad_input, "{}: \"constraints\" must be a list of expressions", origin);
      for (const auto& c : doc["constraints"]) {
        if (!c.is_string()) fail(Errc::bad_input, "{}: constraint {} is not an expression string", origin, c.dump());
        space.constraints.push_back(c.get<std::string>());
      }
    }
  } else {
    fail(Errc::bad_input, "{}: a search space is a JSON object (or a list of configurations)", origin);
  }
  auto names = space.names();
  std::sort(names.begin(), names.end());
  if (auto dup = std::adjacent_find(names.begin(), names.end()); dup != names.end()) {
    fail(Errc::bad_input, "{}: the name {} is used twice", origin, *dup);
  }
  space.enumerate(listed ? &*listed : nullptr, origin, max_combinations);
  return space;
}

SearchSpace load_search_space(const std::filesystem::path& file) {
  return parse_search_space(read_file(file), file.string());
}

}  // namespace rpl::autotune
