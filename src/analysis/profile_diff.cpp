#include <rpl/analysis/profile_diff.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include <boost/math/distributions/students_t.hpp>

#include <rpl/analysis/run_grouping.hpp>

namespace rpl::analysis {

double KernelTimes::per_run_ms() const {
  if (run_ms.empty()) return 0;
  double sum = 0;
  for (double t : run_ms) sum += t;
  return sum / static_cast<double>(run_ms.size());
}

double ProfileTimes::per_run_ms() const {
  double sum = 0;
  for (const auto& k : kernels) sum += k.per_run_ms();
  return sum;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::unchanged: return "unchanged";
    case Verdict::added: return "added";
    case Verdict::removed: return "removed";
  }
  return "unchanged";
}

ProfileTimes kernel_times(const trace::Trace& trace) {
  const auto grouping = group_runs(trace);
  ProfileTimes p;
  p.runs = std::max(grouping.runs, 1);
  struct Accumulator {
    std::vector<double> run_ms;
    size_t n = 0;
    double mean = 0, m2 = 0;  // Welford's running mean and squared deviations, of dispatch ms
  };
  std::map<std::string, Accumulator> by_name;
  for (const auto& d : trace.dispatches) {
    const std::string& name = d.symbol >= 0 ? trace.symbols[static_cast<size_t>(d.symbol)].name() : std::string("?");
    auto& a = by_name[name];
    if (a.run_ms.empty()) a.run_ms.assign(static_cast<size_t>(p.runs), 0.0);
    const size_t run = static_cast<size_t>(d.source) < grouping.run_of_source.size()
                           ? static_cast<size_t>(grouping.run_of_source[static_cast<size_t>(d.source)])
                           : 0;
    const double ms = static_cast<double>(d.duration_ns()) / 1e6;
    a.run_ms[std::min(run, a.run_ms.size() - 1)] += ms;
    ++a.n;
    const double delta = ms - a.mean;
    a.mean += delta / static_cast<double>(a.n);
    a.m2 += delta * (ms - a.mean);
  }
  for (auto& [name, a] : by_name) {
    KernelTimes k;
    k.name = name;
    k.run_ms = std::move(a.run_ms);
    k.dispatches = a.n;
    k.dispatch_stddev_ms = a.n > 1 ? std::sqrt(a.m2 / static_cast<double>(a.n - 1)) : 0;
    p.kernels.push_back(std::move(k));
  }
  return p;
}

namespace {

// The standard error of a kernel's mean time per run, with the degrees of freedom of its
// estimate: the larger of what the runs' spread (runs − 1) and what its dispatches' spread
// (dispatches − 1; a run's total sums dispatches_per_run dispatches) say.
struct StandardError {
  double se = 0, df = 0;
};
StandardError standard_error(const KernelTimes& k, int runs) {
  StandardError by_runs;
  if (k.run_ms.size() >= 2) {
    const double mean = k.per_run_ms(), n = static_cast<double>(k.run_ms.size());
    double ss = 0;
    for (double t : k.run_ms) ss += (t - mean) * (t - mean);
    by_runs = {std::sqrt(ss / (n - 1)) / std::sqrt(n), n - 1};
  }
  const StandardError by_dispatches{
      k.dispatch_stddev_ms * std::sqrt(static_cast<double>(k.dispatches)) / static_cast<double>(std::max(runs, 1)),
      static_cast<double>(k.dispatches) - 1};
  return by_runs.se >= by_dispatches.se ? by_runs : by_dispatches;
}

// How far apart the two means must be to count: Student's t at Welch's degrees of freedom, at the
// 0.27 % two-sided false-alarm rate of three standard errors of a normal (to which it tends with
// many samples; with two runs a side it is about six times wider, as two samples warrant).
double noise_of_difference(StandardError a, StandardError b) {
  const double variance = a.se * a.se + b.se * b.se;
  if (variance <= 0) return 0;
  double spread_of_variance = 0;
  for (const auto& s : {a, b}) {
    if (s.se > 0) spread_of_variance += std::pow(s.se, 4) / std::max(s.df, 1.0);
  }
  const double df = variance * variance / spread_of_variance;
  return boost::math::quantile(boost::math::students_t(df), 1 - 0.0027 / 2) * std::sqrt(variance);
}

StandardError standard_error(const std::vector<double>& samples) {
  if (samples.size() < 2) return {};
  const double n = static_cast<double>(samples.size());
  double mean = 0, ss = 0;
  for (double t : samples) mean += t / n;
  for (double t : samples) ss += (t - mean) * (t - mean);
  return {std::sqrt(ss / (n - 1)) / std::sqrt(n), n - 1};
}

// The change from a to b, and whether it is beyond noise (none measured: any change counts).
template <typename Change>
void judge(double a, double b, double noise, Change& c) {
  c.change_pct = a > 0 ? (b - a) / a * 100 : 0;
  if (noise > 0 && a > 0) c.noise_pct = noise / a * 100;
  const bool beyond = c.noise_pct ? std::abs(b - a) > noise : b != a;
  c.verdict = !beyond ? Verdict::unchanged : b < a ? Verdict::faster : Verdict::slower;
}

KernelSide side(const KernelTimes& k, const ProfileTimes& p) {
  const double total = p.per_run_ms();
  return {k.per_run_ms(), total > 0 ? k.per_run_ms() / total : 0,
          static_cast<double>(k.dispatches) / static_cast<double>(std::max(p.runs, 1))};
}

}  // namespace

SampleChange compare_samples(const std::vector<double>& before, const std::vector<double>& after) {
  auto mean = [](const std::vector<double>& v) {
    double m = 0;
    for (double t : v) m += t / static_cast<double>(v.size());
    return m;
  };
  SampleChange c;
  if (before.empty() || after.empty()) return c;
  c.before_mean = mean(before);
  c.after_mean = mean(after);
  judge(c.before_mean, c.after_mean, noise_of_difference(standard_error(before), standard_error(after)), c);
  return c;
}

std::vector<KernelChange> compare_kernel_times(const ProfileTimes& before, const ProfileTimes& after) {
  std::map<std::string, std::pair<const KernelTimes*, const KernelTimes*>> names;
  for (const auto& k : before.kernels) names[k.name].first = &k;
  for (const auto& k : after.kernels) names[k.name].second = &k;
  std::vector<KernelChange> changes;
  for (const auto& [name, pair] : names) {
    KernelChange c;
    c.name = name;
    if (pair.first) c.before = side(*pair.first, before);
    if (pair.second) c.after = side(*pair.second, after);
    if (!pair.first) {
      c.verdict = Verdict::added;
    } else if (!pair.second) {
      c.verdict = Verdict::removed;
    } else {
      judge(c.before->per_run_ms, c.after->per_run_ms,
            noise_of_difference(standard_error(*pair.first, before.runs), standard_error(*pair.second, after.runs)), c);
    }
    changes.push_back(std::move(c));
  }
  auto weight = [](const KernelChange& c) {
    return std::max(c.before ? c.before->per_run_ms : 0.0, c.after ? c.after->per_run_ms : 0.0);
  };
  std::stable_sort(changes.begin(), changes.end(),
                   [&](const KernelChange& x, const KernelChange& y) { return weight(x) > weight(y); });
  return changes;
}

}  // namespace rpl::analysis
