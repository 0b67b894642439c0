#pragma once
// How repeatable a measurement is (DESIGN.md: cv <= 0.05 stable, <= 0.10 moderate, else unstable;
// one sample is "single_sample", as nothing says how it would repeat).
#include <cstddef>
#include <string>
#include <vector>

namespace rpl::analysis {

struct Stability {
  int runs = 0;
  int processes = 0;     // GPU processes the samples come from (whole-process timing: one a run)
  size_t samples = 0;
  double mean_ms = 0;
  double median_ms = 0;
  double stddev_ms = 0;  // sample standard deviation (n - 1); 0 for one sample
  double min_ms = 0;
  double max_ms = 0;
  double cv = 0;         // stddev / mean
  std::string classification;  // stable, moderate, unstable or single_sample
};

std::string classify_cv(double cv);

/// Statistics over every sample, all runs pooled. samples_ms must not be empty.
Stability compute_stability(std::vector<double> samples_ms, int runs, int processes);

}  // namespace rpl::analysis
