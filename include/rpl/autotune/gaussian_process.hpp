#pragma once
// The Bayesian strategy's model: a Gaussian process over a search space's configurations. Each
// configuration is a point of the unit cube: its features are the parameters and the derived
// features that vary (a numeric one spanning a factor of 4 or more as its log2, each scaled to
// [0, 1] over the space, a word-valued parameter as a coordinate per word). The observations are
// log(cost), standardized; the kernel is Matérn 5/2 with a length scale per feature, chosen with
// the noise by the marginal likelihood over a small grid (one shared scale first, then each
// feature's, once there are as many observations as features). Its predictions carry their
// uncertainty, which expected improvement trades against the predicted cost (Snoek et al. 2012;
// Kernel Tuner's Bayesian optimization strategy).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <rpl/autotune/search_space.hpp>

namespace rpl::autotune {

struct GaussianProcessFit {
  bool fitted = false;               // false with fewer than 2 observations
  size_t observations = 0;
  std::vector<std::string> features;  // the parameters, then the derived features that vary
  std::vector<double> length_scales;  // per feature, in the unit cube
  double noise = 0;                  // variance of the standardized observations
  double log_likelihood = 0;
};

/// Mean and standard deviation of a configuration's log(cost).
struct LogCostPrediction {
  double mean = 0;
  double sd = 0;
};

class GaussianProcess {
 public:
  explicit GaussianProcess(const SearchSpace& space);
  /// Fits log(costs[i]) of configurations[i] (costs > 0), choosing the length scales and noise.
  GaussianProcessFit fit(const std::vector<size_t>& configurations, const std::vector<double>& costs);
  /// The same with the last fit's length scales and noise kept (one factorization instead of a
  /// grid of them); a full fit where they no longer serve.
  GaussianProcessFit refit(const std::vector<size_t>& configurations, const std::vector<double>& costs);
  /// The fit must have succeeded.
  LogCostPrediction predict(size_t configuration) const;
  /// The same for many configurations at once (one triangular solve for them all).
  std::vector<LogCostPrediction> predict(const std::vector<size_t>& configurations) const;
  /// The kernel's correlation of two configurations under the last fit's length scales, in [0, 1].
  double correlation(size_t a, size_t b) const;
  /// Squared distance of two configurations in the unit cube, unscaled.
  double distance2(size_t a, size_t b) const;
  /// Of candidates (not empty), the one nearest the centroid of the whole space in the unit cube
  /// (the first of those as near, within rounding).
  size_t most_central(const std::vector<size_t>& candidates) const;

 private:
  struct Hyper {
    std::vector<double> length_scales;
    double noise = 0;
  };
  struct Solved;  // the factored covariance of the observations (Eigen, in the source file)
  double kernel(const double* a, const double* b, const Hyper& h) const;
  void observe(const std::vector<size_t>& configurations, const std::vector<double>& costs);
  /// The factored covariance under h, and its log marginal likelihood; none where it is not positive definite.
  std::shared_ptr<const Solved> solve(const Hyper& h, double& log_likelihood) const;
  const double* point(size_t configuration) const { return &points_[configuration * dims_]; }
  double distance2(const double* a, const double* b) const;

  const SearchSpace& space_;
  size_t dims_ = 0;
  std::vector<double> points_;           // per configuration, dims_ coordinates
  std::vector<std::string> features_;    // the parameters, then the derived features that vary
  std::vector<size_t> feature_of_;       // per coordinate: the feature it belongs to
  // The last fit:
  std::vector<size_t> observed_;
  std::vector<double> y_;                // standardized log costs
  double y_mean_ = 0, y_sd_ = 1;
  Hyper hyper_;
  std::shared_ptr<const Solved> solved_;
};

/// Expected improvement of a prediction on the best observed log cost, for minimization.
double expected_improvement(const LogCostPrediction& p, double best_log_cost);
/// The chance, under a prediction, that the log cost is below log_cost (0 or 1 where it is certain).
double chance_below(const LogCostPrediction& p, double log_cost);

}  // namespace rpl::autotune
