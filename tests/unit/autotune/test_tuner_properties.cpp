// What every search keeps to, on spaces and landscapes drawn at random (a fixed seed): one to four
// parameters of numbers or words, a derived feature and a constraint at times, landscapes smooth,
// rugged, flat, with a region that fails or failing almost everywhere; every strategy at budgets
// from one configuration to the whole space. Each run measures no configuration twice, at most its
// budget (bayes and random exactly it), keeps a curve that never rises, names as best the measured
// success of least value, and is the same run again with the same seed.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>

#include "tuner_doubles.hpp"

namespace rpl::autotune {
namespace {
using namespace test_doubles;

std::string random_space(std::mt19937_64& rng) {
  auto below = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const size_t parameters = 1 + below(4);
  std::string out = R"({"parameters": {)";
  std::vector<std::string> numeric;
  for (size_t p = 0; p < parameters; ++p) {
    const std::string name = fmt::format("P{}", p);
    out += fmt::format("{}\"{}\": ", p ? ", " : "", name);
    const size_t values = 1 + below(7);
    switch (below(3)) {
      case 0: {  // words
        std::string list;
        for (size_t v = 0; v < std::min<size_t>(values, 4); ++v) list += fmt::format("{}\"w{}\"", v ? ", " : "", v);
        out += "[" + list + "]";
        break;
      }
      case 1: {  // any numbers, negative ones too
        std::set<int> set;
        for (size_t v = 0; v < values; ++v) set.insert(static_cast<int>(below(60)) - 10);
        std::string list;
        for (int v : set) list += fmt::format("{}{}", list.empty() ? "" : ", ", v);
        out += "[" + list + "]";
        numeric.push_back(name);
        break;
      }
      default:  // powers of two, a range with a factor
        out += fmt::format(R"({{"min": 1, "max": {}, "factor": 2}})", 1 << values);
        numeric.push_back(name);
    }
  }
  out += "}";
  if (numeric.size() >= 2 && below(2) == 0) {
    out += fmt::format(R"(, "derived": {{"PRODUCT": "{} * {}"}}, "constraints": ["PRODUCT <= {}"])", numeric[0], numeric[1], 4 << below(8));
  }
  return out + "}";
}

enum class Kind { smooth, rugged, flat, failing_region, failing_mostly };

Measurement answer(const SearchSpace& s, size_t c, Kind kind, uint64_t salt) {
  const uint64_t h = (c + 1) * 0x9e3779b97f4a7c15ULL ^ salt;
  const double noise = static_cast<double>(h % 1000) / 1000;  // 0..1, fixed per configuration
  double position = 0;
  for (size_t p = 0; p < s.parameters.size(); ++p) position += std::pow(static_cast<double>(s.value_index(c, p)) - 1.5, 2);
  Measurement failed;
  failed.failure = Failure::launch_failed;
  failed.runs = 1;
  switch (kind) {
    case Kind::smooth: return ok(1 + 0.1 * position + 0.01 * noise);
    case Kind::rugged: return ok(0.5 + 4 * noise);
    case Kind::flat: return ok(1);
    case Kind::failing_region: return s.value_index(c, 0) >= 2 ? failed : ok(1 + 0.1 * position + 0.01 * noise);
    case Kind::failing_mostly: return noise < 0.9 ? failed : ok(1 + noise);
  }
  return failed;
}

TEST(TunerProperties, EverySearchKeepsItsBudgetItsCurveAndItsBest) {
  std::mt19937_64 rng(2026);
  size_t spaces = 0;
  std::set<Kind> kinds;  // what the draw covered
  bool words = false, constrained = false;
  while (spaces < 40) {
    const std::string text = random_space(rng);
    SearchSpace s;
    try {
      s = parse_search_space(text, "random.json");
    } catch (const Error&) {
      continue;  // the constraint rejected every configuration: a space the user is told of
    }
    if (s.size() > 500) continue;  // the test's time
    ++spaces;
    const auto kind = static_cast<Kind>(rng() % 5);
    kinds.insert(kind);
    words = words || text.find("\"w0\"") != std::string::npos;
    constrained = constrained || text.find("constraints") != std::string::npos;
    const uint64_t salt = rng();
    for (Strategy strategy : {Strategy::bayes, Strategy::model, Strategy::random}) {
      for (size_t budget : {size_t{1}, size_t{2}, size_t{3}, s.size() / 10 + 1, s.size() / 2 + 1, s.size()}) {
        const auto where = fmt::format("{} ({} configurations, landscape {}), {}, budget {}", text, s.size(), static_cast<int>(kind),
                                       strategy_name(strategy), budget);
        TuneOptions o;
        o.strategy = strategy;
        o.budget = budget;
        o.seed = salt % 7 + 1;
        auto run = [&] {
          FunctionEvaluator eval([&](size_t c) { return answer(s, c, kind, salt); });
          MemoryStore store;
          return tune(s, eval, store, o);
        };
        const auto r = run();
        std::set<size_t> seen;
        for (const auto& m : r.measured) EXPECT_TRUE(seen.insert(m.configuration).second) << where << ": measured twice";
        EXPECT_EQ(r.budget, std::min(budget, s.size())) << where;
        EXPECT_LE(r.measured.size(), r.budget) << where;
        if (strategy != Strategy::model) {
          EXPECT_EQ(r.measured.size(), r.budget) << where;
        }
        ASSERT_EQ(r.curve.size(), r.measured.size()) << where;
        for (size_t i = 1; i < r.curve.size(); ++i) {
          if (r.curve[i - 1].best) {
            EXPECT_LE(r.curve[i].best_value, r.curve[i - 1].best_value) << where << ", point " << i;
          }
        }
        double least = INFINITY;
        for (const auto& m : r.measured) {
          if (m.measurement.ok()) least = std::min(least, m.measurement.value);
        }
        if (std::isfinite(least)) {
          ASSERT_TRUE(r.best) << where;
          EXPECT_TRUE(answer(s, *r.best, kind, salt).ok()) << where;
          EXPECT_EQ(answer(s, *r.best, kind, salt).value, least) << where;
          EXPECT_TRUE(seen.count(*r.best)) << where;
        } else {
          EXPECT_FALSE(r.best) << where;
        }
        const auto again = run();
        ASSERT_EQ(again.measured.size(), r.measured.size()) << where;
        for (size_t i = 0; i < r.measured.size(); ++i) EXPECT_EQ(again.measured[i].configuration, r.measured[i].configuration) << where;
        EXPECT_EQ(again.best, r.best) << where;
      }
    }
  }
  EXPECT_EQ(kinds.size(), 5u) << "the draw left a kind of landscape out";
  EXPECT_TRUE(words && constrained) << "the draw left out word-valued parameters or constraints";
}

}  // namespace
}  // namespace rpl::autotune
