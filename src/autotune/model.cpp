#include <rpl/autotune/model.hpp>

#include <cmath>
#include <limits>

#include <Eigen/Dense>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

constexpr double kLambdas[] = {1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0};

Eigen::VectorXd ridge(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, double lambda) {
  Eigen::MatrixXd A = X.transpose() * X;
  for (Eigen::Index i = 1; i < A.rows(); ++i) A(i, i) += lambda;  // the intercept is not shrunk
  return A.ldlt().solve(X.transpose() * y);
}

double r_squared(const Eigen::VectorXd& y, const Eigen::VectorXd& predicted) {
  const double mean = y.mean();
  const double total = (y.array() - mean).square().sum();
  const double residual = (y - predicted).squaredNorm();
  return total > 0 ? 1 - residual / total : (residual == 0 ? 1 : 0);
}

}  // namespace

QuadraticModel::QuadraticModel(const SearchSpace& space) : space_(space) {
  const size_t n = space.size();
  auto add_numeric = [&](const std::string& name, int source, auto raw_of) {
    // A positive feature spanning a factor of 4 or more (tile sizes, thread counts) acts
    // multiplicatively on time: it enters as its logarithm.
    double lo = INFINITY, hi = -INFINITY;
    for (size_t c = 0; c < n; ++c) {
      lo = std::min(lo, raw_of(c));
      hi = std::max(hi, raw_of(c));
    }
    const bool logarithmic = lo > 0 && hi >= 4 * lo;
    auto value_of = [&](size_t c) { return logarithmic ? std::log2(raw_of(c)) : raw_of(c); };
    double sum = 0, sq = 0;
    for (size_t c = 0; c < n; ++c) sum += value_of(c);
    const double mean = sum / static_cast<double>(n);
    for (size_t c = 0; c < n; ++c) sq += (value_of(c) - mean) * (value_of(c) - mean);
    const double sd = std::sqrt(sq / static_cast<double>(n));
    if (sd == 0) return;  // a constant says nothing
    feature_names_.push_back(logarithmic ? "log2(" + name + ")" : name);
    numeric_source_.push_back(source);
    logarithmic_.push_back(logarithmic);
    mean_.push_back(mean);
    scale_.push_back(sd);
  };
  for (size_t p = 0; p < space.parameters.size(); ++p) {
    if (!space.parameters[p].numeric()) continue;
    add_numeric(space.parameters[p].name, static_cast<int>(p), [&](size_t c) { return *space.value(c, p).number; });
  }
  for (size_t d = 0; d < space.derived.size(); ++d) {
    add_numeric(space.derived[d].name, -1 - static_cast<int>(d), [&](size_t c) { return space.derived_value(c, d); });
  }
  for (size_t p = 0; p < space.parameters.size(); ++p) {
    const auto& param = space.parameters[p];
    if (param.numeric()) continue;
    for (size_t v = 1; v < param.values.size(); ++v) {  // the first value is the baseline
      indicators_.emplace_back(p, v);
      feature_names_.push_back(param.name + "=" + param.values[v].text);
    }
  }
}

std::vector<double> QuadraticModel::row(size_t c) const {
  std::vector<double> z;
  for (size_t i = 0; i < numeric_source_.size(); ++i) {
    const int s = numeric_source_[i];
    const double raw = s >= 0 ? *space_.value(c, static_cast<size_t>(s)).number : space_.derived_value(c, static_cast<size_t>(-1 - s));
    z.push_back(((logarithmic_[i] ? std::log2(raw) : raw) - mean_[i]) / scale_[i]);
  }
  std::vector<double> out{1.0};
  out.insert(out.end(), z.begin(), z.end());
  for (size_t i = 0; i < z.size(); ++i) {
    for (size_t j = i; j < z.size(); ++j) out.push_back(z[i] * z[j]);
  }
  for (const auto& [p, v] : indicators_) {
    const auto& value = space_.value(c, p);
    out.push_back(value == space_.parameters[p].values[v] ? 1.0 : 0.0);
  }
  return out;
}

ModelFit QuadraticModel::fit(const std::vector<size_t>& configurations, const std::vector<double>& costs) {
  ModelFit result;
  result.features = feature_names_;
  result.observations = configurations.size();
  coefficients_.clear();
  const auto n = static_cast<Eigen::Index>(configurations.size());
  if (n < 3) return result;
  const auto terms = static_cast<Eigen::Index>(row(configurations[0]).size());
  Eigen::MatrixXd X(n, terms);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto r = row(configurations[static_cast<size_t>(i)]);
    for (Eigen::Index j = 0; j < terms; ++j) X(i, j) = r[static_cast<size_t>(j)];
    if (costs[static_cast<size_t>(i)] <= 0) fail(Errc::internal, "the model needs positive costs");
    y(i) = std::log(costs[static_cast<size_t>(i)]);
  }
  // k-fold cross-validation picks the ridge strength; folds by position, so deterministic.
  const Eigen::Index k = std::min<Eigen::Index>(5, n);
  double best_cv = -std::numeric_limits<double>::infinity();
  double best_lambda = kLambdas[0];
  for (double lambda : kLambdas) {
    Eigen::VectorXd held(n);
    for (Eigen::Index fold = 0; fold < k; ++fold) {
      std::vector<Eigen::Index> train, test;
      for (Eigen::Index i = 0; i < n; ++i) (i % k == fold ? test : train).push_back(i);
      Eigen::MatrixXd Xt(static_cast<Eigen::Index>(train.size()), terms);
      Eigen::VectorXd yt(static_cast<Eigen::Index>(train.size()));
      for (size_t t = 0; t < train.size(); ++t) {
        Xt.row(static_cast<Eigen::Index>(t)) = X.row(train[t]);
        yt(static_cast<Eigen::Index>(t)) = y(train[t]);
      }
      const Eigen::VectorXd beta = ridge(Xt, yt, lambda);
      for (Eigen::Index i : test) held(i) = X.row(i).dot(beta);
    }
    const double cv = r_squared(y, held);
    if (std::isfinite(cv) && cv > best_cv + 1e-12) {
      best_cv = cv;
      best_lambda = lambda;
    }
  }
  const Eigen::VectorXd beta = ridge(X, y, best_lambda);
  const Eigen::VectorXd fitted = X * beta;
  coefficients_.assign(beta.data(), beta.data() + beta.size());
  result.fitted = true;
  result.terms = static_cast<size_t>(terms);
  result.r2 = r_squared(y, fitted);
  result.cv_r2 = std::isfinite(best_cv) ? best_cv : 0;
  result.residual_sd = std::sqrt((y - fitted).squaredNorm() / static_cast<double>(n));
  result.ridge_lambda = best_lambda;
  return result;
}

double QuadraticModel::predict(size_t c) const {
  if (coefficients_.empty()) fail(Errc::internal, "predict before a successful fit");
  const auto r = row(c);
  double log_cost = 0;
  for (size_t j = 0; j < r.size(); ++j) log_cost += r[j] * coefficients_[j];
  return std::exp(log_cost);
}

}  // namespace rpl::autotune
