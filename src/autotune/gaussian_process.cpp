#include <rpl/autotune/gaussian_process.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

namespace rpl::autotune {

struct GaussianProcess::Solved {
  Eigen::LLT<Eigen::MatrixXd> llt;
  Eigen::VectorXd alpha;
};

namespace {

constexpr double kSqrt5 = 2.23606797749979;
// The grids the marginal likelihood chooses from (standardized observations, unit cube).
constexpr double kLengthScales[] = {0.08, 0.12, 0.18, 0.27, 0.4, 0.6, 0.9, 1.4, 2.0, 3.0};
constexpr double kNoises[] = {1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3};
constexpr double kScaleSteps[] = {0.35, 0.6, 1.7, 3.0};

double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI); }
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

}  // namespace

GaussianProcess::GaussianProcess(const SearchSpace& space) : space_(space) {
  // A feature: a numeric parameter or derived feature (one coordinate), or a word-valued parameter
  // (a coordinate per word).
  struct Axis {
    size_t feature;
    int parameter = -1, derived = -1;  // where its values come from
    bool logarithmic = false;
    double low = 0, high = 0;
    int word = -1;
  };
  std::vector<Axis> axes;
  auto numeric_axis = [&](Axis a, const std::vector<double>& values) {
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (double v : values) low = std::min(low, v), high = std::max(high, v);
    if (!std::isfinite(low) || !std::isfinite(high) || !(high > low)) return false;
    a.logarithmic = low > 0 && high / low >= 4;
    a.low = a.logarithmic ? std::log2(low) : low;
    a.high = a.logarithmic ? std::log2(high) : high;
    axes.push_back(a);
    return true;
  };
  for (size_t p = 0; p < space.parameters.size(); ++p) {
    const auto& param = space.parameters[p];
    const size_t feature = features_.size();
    features_.push_back(param.name);
    if (param.numeric()) {
      std::vector<double> values;
      for (const auto& v : param.values) values.push_back(*v.number);
      if (!numeric_axis({feature, static_cast<int>(p)}, values)) axes.push_back({feature, static_cast<int>(p), -1, false, 0, 0, -1});
    } else {
      for (size_t w = 0; w < param.values.size(); ++w) axes.push_back({feature, static_cast<int>(p), -1, false, 0, 0, static_cast<int>(w)});
    }
  }
  // Derived features (THREADS = BM/TM * BN/TN) are what the time often follows: coordinates too.
  for (size_t d = 0; d < space.derived.size(); ++d) {
    std::vector<double> values(space.size());
    for (size_t c = 0; c < space.size(); ++c) values[c] = space.derived_value(c, d);
    if (numeric_axis({features_.size(), -1, static_cast<int>(d)}, values)) features_.push_back(space.derived[d].name);
  }
  dims_ = axes.size();
  for (const auto& a : axes) feature_of_.push_back(a.feature);
  points_.resize(space.size() * dims_);
  for (size_t c = 0; c < space.size(); ++c) {
    for (size_t d = 0; d < dims_; ++d) {
      const auto& a = axes[d];
      double x = 0;
      if (a.word >= 0) {
        x = space.value(c, static_cast<size_t>(a.parameter)) == space.parameters[static_cast<size_t>(a.parameter)].values[static_cast<size_t>(a.word)]
                ? std::sqrt(0.5)  // two words are 1 apart
                : 0;
      } else {
        const double v = a.derived >= 0 ? space.derived_value(c, static_cast<size_t>(a.derived)) : *space.value(c, static_cast<size_t>(a.parameter)).number;
        const double raw = a.logarithmic ? std::log2(v) : v;
        x = a.high > a.low ? (raw - a.low) / (a.high - a.low) : 0;
      }
      points_[c * dims_ + d] = x;
    }
  }
  hyper_.length_scales.assign(features_.size(), 1.0);
}

double GaussianProcess::kernel(const double* a, const double* b, const Hyper& h) const {
  double r2 = 0;
  for (size_t d = 0; d < dims_; ++d) {
    const double diff = (a[d] - b[d]) / h.length_scales[feature_of_[d]];
    r2 += diff * diff;
  }
  const double r = std::sqrt(r2);
  return (1 + kSqrt5 * r + 5 * r2 / 3) * std::exp(-kSqrt5 * r);
}

std::shared_ptr<const GaussianProcess::Solved> GaussianProcess::solve(const Hyper& h, double& log_likelihood) const {
  const auto n = static_cast<Eigen::Index>(observed_.size());
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j <= i; ++j) {
      k(i, j) = k(j, i) = kernel(point(observed_[static_cast<size_t>(i)]), point(observed_[static_cast<size_t>(j)]), h);
    }
    k(i, i) += h.noise;
  }
  auto solved = std::make_shared<Solved>();
  solved->llt.compute(k);
  if (solved->llt.info() != Eigen::Success) return nullptr;
  const Eigen::Map<const Eigen::VectorXd> y(y_.data(), n);
  solved->alpha = solved->llt.solve(y);
  const Eigen::MatrixXd l = solved->llt.matrixL();
  double log_det = 0;
  for (Eigen::Index i = 0; i < n; ++i) log_det += std::log(l(i, i));
  log_likelihood = -0.5 * y.dot(solved->alpha) - log_det - 0.5 * static_cast<double>(n) * std::log(2 * M_PI);
  return solved;
}

void GaussianProcess::observe(const std::vector<size_t>& configurations, const std::vector<double>& costs) {
  observed_ = configurations;
  y_.clear();
  for (double c : costs) y_.push_back(std::log(c));
  double sum = 0, sum2 = 0;
  for (double v : y_) sum += v, sum2 += v * v;
  const double n = static_cast<double>(y_.size());
  y_mean_ = sum / n;
  y_sd_ = std::sqrt(std::max(sum2 / n - y_mean_ * y_mean_, 0.0));
  if (y_sd_ < 1e-9) y_sd_ = 1;
  for (double& v : y_) v = (v - y_mean_) / y_sd_;
}

GaussianProcessFit GaussianProcess::refit(const std::vector<size_t>& configurations, const std::vector<double>& costs) {
  if (!solved_ || configurations.size() < 2) return fit(configurations, costs);
  observe(configurations, costs);
  double ll = 0;
  auto s = solve(hyper_, ll);
  if (!s) return fit(configurations, costs);
  solved_ = std::move(s);
  return {true, configurations.size(), features_, hyper_.length_scales, hyper_.noise, ll};
}

GaussianProcessFit GaussianProcess::fit(const std::vector<size_t>& configurations, const std::vector<double>& costs) {
  GaussianProcessFit out;
  out.observations = configurations.size();
  solved_.reset();
  if (configurations.size() < 2) return out;
  observe(configurations, costs);

  // One length scale for every feature, with the noise; then each feature's own, in two sweeps,
  // once there are as many observations as features. (From three times as many, a stencil's rows
  // per thread were told apart from its block shape only after its 5 % budget: 43 of 100 seeds
  // found the best within 3 % there, 76 so.)
  const size_t features = features_.size();
  double best = -std::numeric_limits<double>::infinity();
  Hyper chosen;
  auto consider = [&](const Hyper& h) {
    double ll = 0;
    auto s = solve(h, ll);
    if (s && ll > best) best = ll, chosen = h, solved_ = std::move(s);
  };
  for (double scale : kLengthScales) {
    for (double noise : kNoises) consider({std::vector<double>(features, scale), noise});
  }
  if (!solved_) return out;
  if (configurations.size() >= features) {
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (size_t f = 0; f < features; ++f) {
        const Hyper base = chosen;
        for (double step : kScaleSteps) {
          Hyper h = base;
          h.length_scales[f] *= step;
          consider(h);
        }
      }
    }
  }
  hyper_ = chosen;
  out.fitted = true;
  out.features = features_;
  out.length_scales = chosen.length_scales;
  out.noise = chosen.noise;
  out.log_likelihood = best;
  return out;
}

LogCostPrediction GaussianProcess::predict(size_t configuration) const { return predict(std::vector<size_t>{configuration}).front(); }

std::vector<LogCostPrediction> GaussianProcess::predict(const std::vector<size_t>& configurations) const {
  const auto n = static_cast<Eigen::Index>(observed_.size()), m = static_cast<Eigen::Index>(configurations.size());
  Eigen::MatrixXd k(n, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) k(i, j) = kernel(point(configurations[static_cast<size_t>(j)]), point(observed_[static_cast<size_t>(i)]), hyper_);
  }
  const Eigen::VectorXd mean = k.transpose() * solved_->alpha;
  solved_->llt.matrixL().solveInPlace(k);
  std::vector<LogCostPrediction> out;
  out.reserve(configurations.size());
  for (Eigen::Index j = 0; j < m; ++j) {
    const double variance = std::max(1.0 - k.col(j).squaredNorm(), 1e-12);
    out.push_back({y_mean_ + mean(j) * y_sd_, std::sqrt(variance) * y_sd_});
  }
  return out;
}

double GaussianProcess::correlation(size_t a, size_t b) const { return kernel(point(a), point(b), hyper_); }

double GaussianProcess::distance2(const double* a, const double* b) const {
  double r2 = 0;
  for (size_t d = 0; d < dims_; ++d) r2 += (a[d] - b[d]) * (a[d] - b[d]);
  return r2;
}

double GaussianProcess::distance2(size_t a, size_t b) const { return distance2(point(a), point(b)); }

size_t GaussianProcess::most_central(const std::vector<size_t>& candidates) const {
  std::vector<double> centroid(dims_, 0.0);
  for (size_t c = 0; c < space_.size(); ++c) {
    for (size_t d = 0; d < dims_; ++d) centroid[d] += point(c)[d] / static_cast<double>(space_.size());
  }
  // Configurations as near as rounding can tell (those placed alike about the centre) go to the
  // first of the candidates' order, which is the seed's.
  size_t out = candidates.front();
  double nearest = std::numeric_limits<double>::infinity();
  for (size_t c : candidates) {
    const double r2 = distance2(point(c), centroid.data());
    if (r2 < nearest - 1e-9) nearest = r2, out = c;
  }
  return out;
}

double expected_improvement(const LogCostPrediction& p, double best_log_cost) {
  const double gain = best_log_cost - p.mean;
  if (p.sd <= 0) return std::max(gain, 0.0);
  const double z = gain / p.sd;
  return gain * normal_cdf(z) + p.sd * normal_pdf(z);
}

double chance_below(const LogCostPrediction& p, double log_cost) {
  const double below = log_cost - p.mean;
  if (p.sd <= 0) return below > 0;
  return normal_cdf(below / p.sd);
}

}  // namespace rpl::autotune
