#include <rpl/analysis/roofline.hpp>

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace rpl::analysis {
namespace {

using hal::kComputeKinds;
using hal::kMemoryLevels;

// A recipe's terms with their counters found in the trace (kNoCounter where the trace has none).
constexpr size_t kNoCounter = SIZE_MAX;
struct ResolvedTerm {
  size_t counter;
  double coefficient;
  const std::string* name;
  std::optional<size_t> times;  // the counter multiplying it, where the term names one
  const std::string* times_name;
};
using Formula = std::vector<ResolvedTerm>;

// A figure's formula, and the second form it is counted by where a dispatch lacks a counter of the
// first (a trace may join files of ncu's full set and of the recipe's own counters).
struct Figure {
  Formula first, second;
  bool empty() const { return first.empty(); }
};

size_t find_counter(const std::string& name, const std::map<std::string, size_t>& counters) {
  auto it = counters.find(name);
  return it == counters.end() ? kNoCounter : it->second;
}

Formula resolve(const std::vector<CounterTerm>& terms, const std::map<std::string, size_t>& counters) {
  Formula f;
  for (const auto& t : terms) {
    std::optional<size_t> times;
    if (!t.times.empty()) times = find_counter(t.times, counters);
    f.push_back({find_counter(t.counter, counters), t.coefficient, &t.counter, times, &t.times});
  }
  return f;
}

bool is_matrix(size_t kind) { return hal::kComputeKindNames[kind].starts_with("matrix_"); }

// The term's first counter without a value for the dispatch stamped now; null where it has them all.
const std::string* unmeasured(const ResolvedTerm& t, const std::vector<uint32_t>& stamp, uint32_t now) {
  auto has = [&](size_t counter) { return counter != kNoCounter && stamp[counter] == now; };
  if (!has(t.counter)) return t.name;
  if (t.times && !has(*t.times)) return t.times_name;
  return nullptr;
}

// The formula's value for the dispatch stamped now; none where one of its counters is unmeasured.
std::optional<double> value_of(const Formula& f, const std::vector<double>& values, const std::vector<uint32_t>& stamp,
                               uint32_t now) {
  double v = 0;
  for (const auto& t : f) {
    if (unmeasured(t, stamp, now)) return std::nullopt;
    v += t.coefficient * values[t.counter] * (t.times ? values[*t.times] : 1.0);
  }
  return v;
}

// The figure by its first form where that is measured, else by its second; none where neither is.
std::optional<double> figure_value(const Figure& figure, const std::vector<double>& values,
                                   const std::vector<uint32_t>& stamp, uint32_t now) {
  if (auto v = value_of(figure.first, values, stamp, now)) return v;
  if (figure.second.empty()) return std::nullopt;
  return value_of(figure.second, values, stamp, now);
}

// A sum over the measured dispatches; unknown once a dispatch lacks one of its counters.
struct Sum {
  double value = 0;
  bool known = true;
  const std::string* first_missing = nullptr;
};

// The dispatch's figure, less what it counts that is no arithmetic where the dispatch has that.
void add(Sum& sum, const Figure& figure, const Figure& not_arithmetic, const std::vector<double>& values,
         const std::vector<uint32_t>& stamp, uint32_t now) {
  if (figure.empty() || !sum.known) {
    sum.known = !figure.empty() && sum.known;
    return;
  }
  if (auto v = figure_value(figure, values, stamp, now)) {
    const double less = figure_value(not_arithmetic, values, stamp, now).value_or(0);  // an empty figure's is 0
    sum.value += std::max(0.0, *v - less);
    return;
  }
  sum.known = false;
  for (const auto& t : figure.first) {  // the recipe's own counter: what a counter pass collects
    if ((sum.first_missing = unmeasured(t, stamp, now))) break;
  }
}

struct KernelSums {
  size_t dispatches = 0, measured = 0;
  double time_ns = 0;
  double uncounted_matrix_instructions = 0;  // of dispatches whose matrix kinds lack counters
  double integer_matrix_ops = 0;             // the matrix unit's integer operations: no FLOPs
  size_t clocked = 0;                        // measured dispatches whose clock the trace records
  double cycles = 0;                         // their clock times their duration
  std::array<Sum, kComputeKinds> flops;
  std::array<Sum, kMemoryLevels> bytes;
};

hal::DeviceFacts device_of(const trace::Trace& trace) {
  const trace::Agent* agent = nullptr;
  for (const auto& v : trace.counter_values) {
    const auto& d = trace.dispatches[v.dispatch];
    if (d.agent >= 0) {
      agent = &trace.agents[static_cast<size_t>(d.agent)];
      break;
    }
  }
  for (size_t i = 0; !agent && i < trace.agents.size(); ++i) {
    if (trace.agents[i].type == "GPU") agent = &trace.agents[i];
  }
  hal::DeviceFacts facts;
  if (!agent) return facts;
  facts.architecture = agent->name;
  facts.product = agent->product_name;
  facts.compute_units = agent->compute_units;
  facts.clock_mhz = agent->max_clock_mhz;
  facts.dram_bytes_per_s = agent->dram_bytes_per_s;
  return facts;
}

void finish_kernel(KernelRoofline& k, const KernelSums& s, const hal::Ceilings& ceilings) {
  k.dispatches = s.dispatches;
  k.measured_dispatches = s.measured;
  k.time_ns = s.time_ns;
  if (s.measured == 0) {
    k.missing.push_back("no counter values: the counter pass did not profile this kernel");
    return;
  }
  const double seconds = s.time_ns * 1e-9;
  if (s.clocked == s.measured && seconds > 0 && s.cycles > 0) k.clock_mhz = s.cycles / seconds / 1e6;
  if (s.integer_matrix_ops > 0) {
    k.unplaced = "integer matrix work, which is no FLOPs";
    k.missing.push_back(fmt::format("integer matrix work: {:.4g} integer operations of the matrix unit ran, which are no FLOPs: "
                                    "the kernel is not placed on the FLOP roofline",
                                    s.integer_matrix_ops));
  }
  if (s.uncounted_matrix_instructions > 0) {
    k.unplaced = "matrix FLOPs not counted";
    k.missing.push_back(fmt::format("matrix FLOPs not counted: {:.0f} matrix-unit instructions ran, and the trace has no counter of "
                                    "their operations (sm__ops_path_tensor_* on NVIDIA)",
                                    s.uncounted_matrix_instructions));
  }
  // Not one kind counted: say that first, not the first kind's counter (a file of other counters).
  if (std::none_of(s.flops.begin(), s.flops.end(), [](const Sum& f) { return f.known; }) &&
      std::any_of(s.flops.begin(), s.flops.end(), [](const Sum& f) { return f.first_missing != nullptr; })) {
    k.missing.push_back("no FLOPs counted: the trace has none of the FLOP counters");
  }
  for (size_t i = 0; i < kComputeKinds; ++i) {
    if (s.flops[i].known) {
      k.flops[i] = s.flops[i].value;
    } else if (s.flops[i].first_missing) {
      k.missing.push_back(fmt::format("{} FLOPs: counter {} missing", hal::kComputeKindNames[i], *s.flops[i].first_missing));
    }
  }
  for (size_t i = 0; i < kMemoryLevels; ++i) {
    if (s.bytes[i].known) {
      k.bytes[i] = s.bytes[i].value;
      if (seconds > 0) k.achieved_bytes_per_s[i] = s.bytes[i].value / seconds;
    } else if (s.bytes[i].first_missing) {
      k.missing.push_back(fmt::format("{} bytes: counter {} missing", hal::kMemoryLevelNames[i], *s.bytes[i].first_missing));
    }
  }

  if (!k.unplaced.empty()) return;  // its arithmetic is not all known, or not all FLOPs: no position
  // The table's FLOP ceilings are at the device's maximum clock; a kernel measured at another (ncu
  // locks it to base by default) could reach only the roof of the clock it ran at.
  const double clock_scale =
      k.clock_mhz && ceilings.clock_mhz && *ceilings.clock_mhz > 0 ? *k.clock_mhz / *ceilings.clock_mhz : 1.0;
  double total = 0, time_at_peak = 0, largest = 0;
  bool any = false, all_ceilings = true;
  std::string main_kind;
  for (size_t i = 0; i < kComputeKinds; ++i) {
    if (!k.flops[i]) continue;
    any = true;
    const double f = *k.flops[i];
    total += f;
    if (f <= 0) continue;
    if (ceilings.flops_per_s[i]) {
      time_at_peak += f / (*ceilings.flops_per_s[i] * clock_scale);
    } else {
      all_ceilings = false;
      k.missing.push_back(fmt::format("no {} ceiling", hal::kComputeKindNames[i]));
    }
    if (f > largest) largest = f, main_kind = std::string(hal::kComputeKindNames[i]);
  }
  if (!any) return;
  k.total_flops = total;
  if (seconds > 0) k.achieved_flops_per_s = total / seconds;
  if (total > 0 && all_ceilings && time_at_peak > 0) k.compute_roof = total / time_at_peak;

  const auto& dram = k.bytes[static_cast<size_t>(hal::MemoryLevel::dram)];
  const auto& bandwidth = ceilings.bytes_per_s[static_cast<size_t>(hal::MemoryLevel::dram)];
  if (!dram || *dram <= 0 || seconds <= 0) return;
  k.operational_intensity = total / *dram;
  if (!bandwidth) return;
  const double memory_roof = *k.operational_intensity * *bandwidth;
  if (total == 0) {  // no arithmetic: only bandwidth binds
    k.binding_ceiling = "dram";
    k.position = "memory_bound";
    k.percent_of_roof = 100.0 * (*dram / seconds) / *bandwidth;
    return;
  }
  if (!k.compute_roof) return;
  const bool memory = memory_roof < *k.compute_roof;
  k.binding_ceiling = memory ? "dram" : main_kind;
  k.position = memory ? "memory_bound" : "compute_bound";
  k.percent_of_roof = 100.0 * *k.achieved_flops_per_s / std::min(memory_roof, *k.compute_roof);
}

}  // namespace

RooflineResult analyze_roofline(const trace::Trace& trace, const RooflineOptions& options) {
  RooflineResult r;
  r.device = device_of(trace);
  r.ceilings = hal::table_ceilings(r.device);
  if (options.ceilings_file) hal::apply_ceilings_file(r.ceilings, *options.ceilings_file);
  if (trace.counter_values.empty()) {
    r.warnings.push_back("the trace holds no counter values; profile with --roofline to collect them");
  }
  const auto recipe = counter_recipe(r.device.architecture);
  if (!recipe && !trace.counter_values.empty()) {
    r.warnings.push_back(fmt::format("no counter formulas for {}: its FLOPs and bytes are not computed",
                                     r.device.architecture.empty() ? "this device" : r.device.architecture));
  }
  std::map<std::string, size_t> counters;
  for (size_t i = 0; i < trace.counter_names.size(); ++i) counters.emplace(trace.counter_names[i], i);
  std::array<Figure, kComputeKinds> flops, flops_not_arithmetic;
  std::array<Figure, kMemoryLevels> bytes;
  size_t matrix_instructions = kNoCounter, not_arithmetic = kNoCounter;
  std::vector<Formula> integer_ops;  // a term each: a GPU may have one counter and not the other
  std::vector<size_t> clocks;  // the recipe's clock counters the trace has, in the recipe's order
  if (recipe) {
    for (const auto& name : recipe->compute_clock) {
      if (size_t c = find_counter(name, counters); c != kNoCounter) clocks.push_back(c);
    }
    matrix_instructions = find_counter(recipe->matrix_instructions, counters);
    not_arithmetic = find_counter(recipe->matrix_instructions_not_arithmetic, counters);
    for (const auto& t : resolve(recipe->matrix_integer_ops, counters)) integer_ops.push_back({t});
    for (size_t i = 0; i < kComputeKinds; ++i) {
      flops[i] = {resolve(recipe->flops[i], counters), resolve(recipe->flops_otherwise[i], counters)};
      flops_not_arithmetic[i] = {resolve(recipe->flops_not_arithmetic[i], counters),
                                 resolve(recipe->flops_not_arithmetic_otherwise[i], counters)};
    }
    for (size_t i = 0; i < kMemoryLevels; ++i) {
      bytes[i] = {resolve(recipe->bytes[i], counters), resolve(recipe->bytes_otherwise[i], counters)};
    }
  }

  // One name lookup per symbol, not per dispatch: a trace may hold millions.
  std::map<std::string, KernelSums> kernels;
  std::vector<KernelSums*> of_symbol(trace.symbols.size());
  for (size_t s = 0; s < trace.symbols.size(); ++s) of_symbol[s] = &kernels[trace.symbols[s].name()];
  std::vector<double> values(trace.counter_names.size());
  std::vector<uint32_t> stamp(trace.counter_names.size(), 0);
  size_t next = 0;
  for (uint32_t i = 0; i < trace.dispatches.size(); ++i) {
    const auto& d = trace.dispatches[i];
    auto& k = *of_symbol[static_cast<size_t>(d.symbol)];
    ++k.dispatches;
    bool measured = false;
    for (; next < trace.counter_values.size() && trace.counter_values[next].dispatch == i; ++next) {
      const auto& v = trace.counter_values[next];
      values[v.counter] = v.value;
      stamp[v.counter] = i + 1;
      measured = true;
    }
    if (!measured) continue;
    ++k.measured;
    k.time_ns += static_cast<double>(d.duration_ns());
    for (size_t c : clocks) {
      if (stamp[c] != i + 1) continue;
      if (values[c] > 0) {
        ++k.clocked;
        k.cycles += values[c] * static_cast<double>(d.duration_ns()) * 1e-9;
      }
      break;
    }
    // A matrix kind without the counters of its operations is zero where the matrix unit ran no
    // instruction; where it ran some, they are not counted.
    const bool has_matrix_instructions = matrix_instructions != kNoCounter && stamp[matrix_instructions] == i + 1;
    double matrix_arithmetic = has_matrix_instructions ? values[matrix_instructions] : 0;
    if (has_matrix_instructions && not_arithmetic != kNoCounter && stamp[not_arithmetic] == i + 1) {
      matrix_arithmetic = std::max(0.0, matrix_arithmetic - values[not_arithmetic]);
    }
    bool uncounted = false;
    for (size_t f = 0; f < kComputeKinds; ++f) {
      if (has_matrix_instructions && is_matrix(f) && !flops[f].empty() &&
          !figure_value(flops[f], values, stamp, i + 1)) {
        if (matrix_arithmetic == 0) continue;
        uncounted = true;
      }
      add(k.flops[f], flops[f], flops_not_arithmetic[f], values, stamp, i + 1);
    }
    if (uncounted) k.uncounted_matrix_instructions += matrix_arithmetic;
    for (const auto& f : integer_ops) k.integer_matrix_ops += value_of(f, values, stamp, i + 1).value_or(0);
    for (size_t b = 0; b < kMemoryLevels; ++b) add(k.bytes[b], bytes[b], Figure{}, values, stamp, i + 1);
  }
  auto speed_of_light = speed_of_light_by_kernel(trace);
  for (const auto& [name, sums] : kernels) {
    if (sums.dispatches == 0) continue;  // a symbol that never ran
    KernelRoofline k;
    k.name = name;
    finish_kernel(k, sums, r.ceilings);
    if (auto it = speed_of_light.find(name); it != speed_of_light.end()) k.speed_of_light = it->second;
    // What the architecture's counters never give, after what kept this kernel's figures out.
    if (recipe && !recipe->why_missing.empty() && k.measured_dispatches > 0) k.missing.push_back(recipe->why_missing);
    r.kernels.push_back(std::move(k));
  }
  std::stable_sort(r.kernels.begin(), r.kernels.end(), [](const KernelRoofline& a, const KernelRoofline& b) {
    return a.time_ns > b.time_ns;
  });
  return r;
}

}  // namespace rpl::analysis
