// The doubles the tuner's tests share: small grids, an evaluator that answers from a function of
// the configuration, a store in memory, and the bowl most tests tune.
#pragma once

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <rpl/autotune/tuner.hpp>

namespace rpl::autotune::test_doubles {

// Parameters A (1..20), B (1..12): 240 configurations.
inline SearchSpace grid() {
  return parse_search_space(R"({"parameters": {"A": {"min": 1, "max": 20}, "B": {"min": 1, "max": 12}}})", "grid.json");
}

// Parameters A (1..40), B (1..24): 960 configurations, where 5 % of the space is 48 measured and
// the bayes seeds grow with the budget up to it.
inline SearchSpace wide_grid() {
  return parse_search_space(R"({"parameters": {"A": {"min": 1, "max": 40}, "B": {"min": 1, "max": 24}}})", "wide_grid.json");
}

inline double a_of(const SearchSpace& s, size_t c) { return *s.value(c, 0).number; }
inline double b_of(const SearchSpace& s, size_t c) { return *s.value(c, 1).number; }

// Answers from a function of the configuration; counts every call.
class FunctionEvaluator : public Evaluator {
 public:
  explicit FunctionEvaluator(std::function<Measurement(size_t)> f) : f_(std::move(f)) {}
  Measurement measure(size_t c, int worker, const std::atomic<bool>*) override {
    if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // lets every worker get some
    std::lock_guard<std::mutex> guard(mutex_);
    ++calls[c];
    workers_used[worker] = true;
    return f_(c);
  }
  std::map<size_t, int> calls;
  std::map<int, bool> workers_used;
  bool slow = false;

 private:
  std::function<Measurement(size_t)> f_;
  std::mutex mutex_;
};

inline Measurement ok(double value) {
  Measurement m;
  m.value = value;
  m.samples = 5;
  m.runs = 1;
  m.stable = true;
  return m;
}

class MemoryStore : public MeasurementStore {
 public:
  std::optional<Measurement> find(size_t c) override {
    auto it = kept.find(c);
    return it == kept.end() ? std::nullopt : std::optional<Measurement>(it->second);
  }
  void store(size_t c, const Measurement& m) override { kept[c] = m; }
  std::map<size_t, Measurement> kept;
};

// A smooth bowl with its best at A=13, B=4, a cliff, and failing configurations.
inline Measurement bowl(const SearchSpace& s, size_t c) {
  const double a = a_of(s, c), b = b_of(s, c);
  if (a == 20 && b > 9) {
    Measurement m;
    m.failure = Failure::launch_failed;
    m.detail = "too many resources";
    m.runs = 1;
    return m;
  }
  double t = 1 + 0.01 * (a - 13) * (a - 13) + 0.03 * (b - 4) * (b - 4);
  if (a * b > 150) t *= 2;
  return ok(t);
}

// The options of a run of the default strategy: its seed and its budget (a count).
inline TuneOptions seeded(uint64_t seed, size_t budget) {
  TuneOptions o;
  o.seed = seed;
  o.budget = budget;
  return o;
}

// The warning of that code ("code: what it says"), or "" where r has none.
inline std::string warning(const TuneResult& r, const std::string& code) {
  for (const auto& w : r.warnings) {
    if (w.rfind(code + ": ", 0) == 0) return w;
  }
  return "";
}

// Tunes s with o on a landscape such as bowl, with a fresh evaluator and an empty store.
inline TuneResult tune_on(const SearchSpace& s, Measurement (*landscape)(const SearchSpace&, size_t), const TuneOptions& o) {
  FunctionEvaluator eval([&](size_t c) { return landscape(s, c); });
  MemoryStore store;
  return tune(s, eval, store, o);
}

}  // namespace rpl::autotune::test_doubles
