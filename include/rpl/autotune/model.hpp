#pragma once
// The tuner's performance model: a degree-2 polynomial in the standardized numeric parameters and
// derived features (plus one indicator per category of a word-valued parameter), fitted to
// log(cost) by ridge least squares (Eigen), its ridge strength chosen by k-fold cross-validation.
// A positive feature spanning a factor of 4 or more enters as its log2 (time scales with tile
// sizes multiplicatively).
#include <cstddef>
#include <string>
#include <vector>

#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

struct ModelFit {
  bool fitted = false;        // false with fewer than 3 observations
  size_t observations = 0;
  size_t terms = 0;           // coefficients, intercept included
  double r2 = 0;              // on the observations it was fitted to
  double cv_r2 = 0;           // k-fold cross-validated (k = min(5, observations)): the one to trust
  double residual_sd = 0;     // of log(cost) on the observations
  double ridge_lambda = 0;
  std::vector<std::string> features;  // the linear features, before squares and products
};

class QuadraticModel {
 public:
  explicit QuadraticModel(const SearchSpace& space);
  /// Fits log(costs[i]) of configurations[i] (costs > 0).
  ModelFit fit(const std::vector<size_t>& configurations, const std::vector<double>& costs);
  /// The predicted cost of a configuration (exp of the fitted log); the fit must have succeeded.
  double predict(size_t configuration) const;

 private:
  std::vector<double> row(size_t configuration) const;
  const SearchSpace& space_;
  std::vector<std::string> feature_names_;
  std::vector<double> mean_, scale_;           // per numeric feature, over the whole space
  std::vector<bool> logarithmic_;              // per numeric feature: enters as log2
  std::vector<std::pair<size_t, size_t>> indicators_;  // (parameter, value index) per indicator
  std::vector<int> numeric_source_;            // per numeric feature: parameter index, or -1 - derived index
  std::vector<double> coefficients_;
};

}  // namespace rpl::autotune
