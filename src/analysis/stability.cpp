#include <rpl/analysis/stability.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <rpl/core/error.hpp>

namespace rpl::analysis {

std::string classify_cv(double cv) {
  if (cv <= 0.05) return "stable";
  if (cv <= 0.10) return "moderate";
  return "unstable";
}

Stability compute_stability(std::vector<double> samples, int runs, int processes) {
  if (samples.empty()) fail(Errc::internal, "compute_stability: no samples");
  std::sort(samples.begin(), samples.end());
  Stability s;
  s.runs = runs;
  s.processes = processes;
  s.samples = samples.size();
  const double n = static_cast<double>(samples.size());
  // Sorted summation: the same samples in any order give the same bytes of output.
  s.mean_ms = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  const size_t mid = samples.size() / 2;
  s.median_ms = samples.size() % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2;
  s.min_ms = samples.front();
  s.max_ms = samples.back();
  if (samples.size() > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - s.mean_ms) * (x - s.mean_ms);
    s.stddev_ms = std::sqrt(squares / (n - 1));
  }
  s.cv = s.mean_ms > 0 ? s.stddev_ms / s.mean_ms : 0;
  // One sample has no spread: a cv of 0 would read as stable.
  s.classification = samples.size() > 1 ? classify_cv(s.cv) : "single_sample";
  return s;
}

}  // namespace rpl::analysis
