#include <rpl/autotune/measurement.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace rpl::autotune {

std::string_view failure_name(Failure failure) {
  switch (failure) {
    case Failure::none: return "none";
    case Failure::build_failed: return "build_failed";
    case Failure::launch_failed: return "launch_failed";
    case Failure::crashed: return "crashed";
    case Failure::timed_out: return "timed_out";
    case Failure::no_kernel: return "no_kernel";
    case Failure::unstable: return "unstable";
    case Failure::no_metric: return "no_metric";
    case Failure::node_failed: return "node_failed";
  }
  return "none";
}

std::optional<Failure> failure_from_name(std::string_view name) {
  if (name == "none") return Failure::none;
  for (Failure f : kFailureKinds) {
    if (failure_name(f) == name) return f;
  }
  return std::nullopt;
}

void summarize_samples(std::vector<double> samples, double max_cv, Measurement& m) {
  m.samples = static_cast<int>(samples.size());
  if (samples.empty()) {
    m.value = 0;
    m.cv = 0;
    m.stable = false;
    return;
  }
  const double n = static_cast<double>(samples.size());
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double ss = 0;
  for (double s : samples) ss += (s - mean) * (s - mean);
  m.cv = samples.size() > 1 && mean != 0 ? std::sqrt(ss / (n - 1)) / std::fabs(mean) : 0;
  std::sort(samples.begin(), samples.end());
  const size_t mid = samples.size() / 2;
  m.value = samples.size() % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
  m.stable = m.cv <= max_cv;
}

bool median_settled(const Measurement& m, double max_cv) {
  return m.samples > 1 && 1.2533 * m.cv / std::sqrt(static_cast<double>(m.samples)) <= max_cv / 5;
}

}  // namespace rpl::autotune
