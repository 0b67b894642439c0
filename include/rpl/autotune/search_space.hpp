#pragma once
// A tuning search space: parameters with their values, derived features computed from them, and
// constraints that remove configurations before anything runs. Read from a JSON file
// (schemas/autotune-space.schema.json): parameters as value lists or ranges, or a plain list of
// configurations.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rpl::autotune {

/// One value of a parameter: a number, or a word (a categorical value such as "fast").
struct Value {
  std::string text;               // what a command template receives: 64, 0.5, fast
  std::optional<double> number;   // set for numbers
  bool operator==(const Value&) const = default;
};

struct Parameter {
  std::string name;
  std::vector<Value> values;  // distinct, in the file's order (ranges ascending)
  bool numeric() const;
};

/// A feature computed from the parameters, e.g. THREADS = (BM/TM)*(BN/TN): usable in constraints,
/// as a placeholder in templates, and as a feature of the model.
struct DerivedFeature {
  std::string name;
  std::string expression;
};

class SearchSpace {
 public:
  std::vector<Parameter> parameters;
  std::vector<DerivedFeature> derived;
  std::vector<std::string> constraints;
  uint64_t combinations = 0;         // before constraints
  uint64_t rejected = 0;             // removed by the constraints

  size_t size() const { return value_indices_.size() / std::max<size_t>(1, parameters.size()); }
  /// Configuration c's value of parameter p.
  const Value& value(size_t c, size_t p) const { return parameters[p].values[value_indices_[c * parameters.size() + p]]; }
  /// The position of configuration c's value of parameter p in that parameter's list.
  uint32_t value_index(size_t c, size_t p) const { return value_indices_[c * parameters.size() + p]; }
  /// Configuration c's value of derived feature d.
  double derived_value(size_t c, size_t d) const { return derived_values_[c * derived.size() + d]; }
  /// The text a template's {NAME} becomes in configuration c, or none for an unknown name.
  std::optional<std::string> text(size_t c, const std::string& name) const;
  /// {"BM": 64, ...}: the parameters (not the derived features), in the space's order.
  nlohmann::ordered_json to_json(size_t c) const;
  /// The configuration with these parameter values, if the space holds it.
  std::optional<size_t> find(const nlohmann::json& values) const;
  /// Every name a template may use: parameters, then derived features.
  std::vector<std::string> names() const;
  /// A digest of what defines the space (names, values, derived features, constraints).
  std::string digest() const;

  /// Builds the configurations: the product of the parameters' values (or the given list),
  /// derived features evaluated, constraints applied. Error(bad_input) naming `origin`.
  void enumerate(const std::vector<std::vector<uint32_t>>* listed, const std::string& origin,
                 uint64_t max_combinations = kMaxCombinations);
  static constexpr uint64_t kMaxCombinations = 10'000'000;

 private:
  std::vector<uint32_t> value_indices_;  // per configuration, per parameter
  std::vector<double> derived_values_;   // per configuration, per derived feature
};

/// Parses and enumerates a space document. Error(bad_input) naming origin for anything wrong:
/// not JSON, no parameters, empty value lists, bad ranges, expressions that do not compile, a
/// space that the constraints leave empty, more than max_combinations (10,000,000) combinations.
SearchSpace parse_search_space(const std::string& text, const std::string& origin,
                               uint64_t max_combinations = SearchSpace::kMaxCombinations);
SearchSpace load_search_space(const std::filesystem::path& file);

/// The value text of a JSON scalar as a command receives it (64, 0.5, fast).
std::optional<Value> value_from_json(const nlohmann::json& v);

}  // namespace rpl::autotune
