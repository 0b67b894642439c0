// NVIDIA stall counters (ncu metric names, listed by `ncu --query-metrics` on the H100):
//   smsp__warp_issue_stalled_<reason>_per_warp_active.pct: the share of active warps stalled for
//   each reason; normalized over the reasons to fractions of stalled time. Where a trace has
//   none, ncu's WarpStateStats section's smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio
//   (reference/cuda.md §5.2), normalized the same way.
//   smsp__issue_active.avg.pct_of_peak_sustained_active (or the section's .avg.per_cycle_active):
//   issue-slot utilization.
//   sm__inst_executed.avg.per_cycle_active: IPC per SM.
//   smsp__sass_average_branch_targets_threads_uniform.pct: ncu's branch efficiency;
//   smsp__sass_branch_targets_threads_divergent.sum: the branch targets where a warp's threads split.
//   smsp__sass_thread_inst_executed_op_<class>_pred_on.sum: thread instructions by class; the
//   tensor pipe's from its warp instructions less its register moves (nvidia_metric_names.hpp).
//   ncu's full set has none of these; it has thread instructions per SASS opcode, as instances
//   (sass_opcodes.cpp groups them).
#include <rpl/analysis/stalls.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include <rpl/trace/ncu_reader.hpp>

#include "heaviest.hpp"
#include "nvidia_metric_names.hpp"
#include "sass_opcodes.hpp"

namespace rpl::analysis {
namespace {

using nvidia_metric::kTensorInstructions;
using nvidia_metric::kTensorMoves;

// NVIDIA's stall reason -> the common vocabulary.
constexpr std::array<std::pair<const char*, const char*>, 19> kNvidiaStalls = {{
    {"long_scoreboard", "memory_dependency"},
    {"short_scoreboard", "lds_dependency"},
    {"barrier", "barrier"},
    {"membar", "memory_fence"},
    {"wait", "fixed_latency"},
    {"math_pipe_throttle", "pipe_busy"},
    {"mio_throttle", "memory_throttle"},
    {"lg_throttle", "memory_throttle"},
    {"tex_throttle", "memory_throttle"},
    {"branch_resolving", "branch"},
    {"no_instruction", "instruction_fetch"},
    {"imc_miss", "instruction_fetch"},
    {"not_selected", "not_selected"},
    {"selected", "selected"},
    {"gmma", "matrix"},
    {"dispatch_stall", "other"},
    {"drain", "other"},
    {"misc", "other"},
    {"sleeping", "other"},
}};

// Thread-instruction classes -> instruction mix categories.
constexpr std::array<std::pair<const char*, const char*>, 14> kNvidiaMix = {{
    {"fadd", "fp32"},    {"fmul", "fp32"},       {"ffma", "fp32"},  {"dadd", "fp64"},
    {"dmul", "fp64"},    {"dfma", "fp64"},       {"hadd", "fp16"},  {"hmul", "fp16"},
    {"hfma", "fp16"},    {"integer", "integer"}, {"memory", "load_store"}, {"control", "branch"},
    {"bit", "integer"},  {"conversion", "other"},
}};

// Two families of a reason's metric, each proportional to the warps in that state: profile --deep
// asks for the share of active warps (in percent); ncu's WarpStateStats section (its full set, in
// the reports people already have) gives warps per issued instruction. Normalized over the
// reasons, both give fractions of stalled time.
std::string stall_metric(const char* reason) {
  return std::string("smsp__warp_issue_stalled_") + reason + "_per_warp_active.pct";
}
std::string section_stall_metric(const char* reason) {
  return std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio";
}
std::string op_metric(const char* op) { return std::string("smsp__sass_thread_inst_executed_op_") + op + "_pred_on.sum"; }

constexpr const char* kIssueActive = "smsp__issue_active.avg.pct_of_peak_sustained_active";
constexpr const char* kIssueActiveRatio = "smsp__issue_active.avg.per_cycle_active";  // the WarpStateStats section's
constexpr const char* kIpc = "sm__inst_executed.avg.per_cycle_active";
constexpr const char* kBranchUniform = "smsp__sass_average_branch_targets_threads_uniform.pct";
constexpr const char* kBranchDivergent = "smsp__sass_branch_targets_threads_divergent.sum";

std::string common_stall(const std::string& nvidia_reason) {
  for (const auto& [reason, common] : kNvidiaStalls) {
    if (nvidia_reason == reason) return common;
  }
  return nvidia_reason.empty() ? "" : "other";
}

// "softmax_naive(const float *, float *, int, int)" -> "softmax_naive": ncu and the trace space
// parameter lists differently.
std::string function_base(const std::string& name) { return name.substr(0, name.find('(')); }

}  // namespace

std::vector<std::string> nvidia_stall_metrics() {
  std::vector<std::string> m = {kIssueActive, kIpc, kBranchUniform, kBranchDivergent, kTensorInstructions, kTensorMoves};
  for (const auto& [reason, common] : kNvidiaStalls) m.push_back(stall_metric(reason));
  for (const auto& [op, category] : kNvidiaMix) m.push_back(op_metric(op));
  for (const char* op : {"misc", "uniform", "inter_thread_communication"}) m.push_back(op_metric(op));
  return m;
}

std::optional<StallAnalysis> analyze_stalls(const trace::Trace& trace, const std::string& kernel) {
  std::map<std::string, uint32_t> ids;
  for (uint32_t i = 0; i < trace.counter_names.size(); ++i) ids.emplace(trace.counter_names[i], i);
  auto id = [&](const std::string& name) -> std::optional<uint32_t> {
    auto it = ids.find(name);
    return it == ids.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  };
  // Time-weighted means of the ratios, sums of the counts, over the kernel's measured dispatches.
  std::map<uint32_t, double> weighted, summed;
  double weight = 0;
  // ncu writes a branch efficiency of 0 % for a launch that took no branch target (0 of 0: Triton's
  // add kernel on an H100): such a launch has no say in the kernel's mean.
  const auto branch_uniform = id(kBranchUniform), branch_divergent = id(kBranchDivergent);
  double branches = 0, branch_weight = 0;
  size_t measured = 0;
  const bool asked = id(stall_metric("long_scoreboard")).has_value();
  const auto metric_of = asked ? stall_metric : section_stall_metric;
  const auto stall_probe = id(metric_of("long_scoreboard"));
  if (!stall_probe) return std::nullopt;
  size_t v = 0;
  for (uint32_t i = 0; i < trace.dispatches.size(); ++i) {
    const auto& d = trace.dispatches[i];
    const bool ours = trace.symbols[static_cast<size_t>(d.symbol)].name() == kernel;
    bool has_stalls = false;
    const size_t first = v;
    for (; v < trace.counter_values.size() && trace.counter_values[v].dispatch == i; ++v) {
      has_stalls |= trace.counter_values[v].counter == *stall_probe;
    }
    if (!ours || !has_stalls) continue;
    ++measured;
    const double w = static_cast<double>(std::max<int64_t>(d.duration_ns(), 1));
    weight += w;
    std::optional<double> uniform, divergent;
    for (size_t j = first; j < v; ++j) {
      const auto& value = trace.counter_values[j];
      weighted[value.counter] += w * value.value;
      summed[value.counter] += value.value;
      if (value.counter == branch_uniform) uniform = value.value;
      if (value.counter == branch_divergent) divergent = value.value;
    }
    if (uniform && !(*uniform == 0 && divergent == 0.0)) {
      branches += w * *uniform;
      branch_weight += w;
    }
  }
  if (measured == 0) return std::nullopt;
  auto mean = [&](const char* name) -> std::optional<double> {
    auto c = id(name);
    if (!c || !weighted.count(*c)) return std::nullopt;
    return weighted[*c] / weight;
  };
  auto total = [&](const std::string& name) -> std::optional<double> {
    auto c = id(name);
    if (!c || !summed.count(*c)) return std::nullopt;
    return summed[*c];
  };

  StallAnalysis s;
  s.kernel = kernel;
  s.measured_dispatches = measured;
  if (auto u = mean(kIssueActive)) {
    s.issue_slot_utilization = *u / 100;
  } else if (auto r = mean(kIssueActiveRatio)) {
    s.issue_slot_utilization = *r;
  }
  s.ipc = mean(kIpc);
  if (branch_weight > 0) s.branch_efficiency = branches / branch_weight / 100;

  double stalled = 0;
  for (const auto& [reason, common] : kNvidiaStalls) {
    auto c = id(metric_of(reason));
    if (c && weighted.count(*c)) stalled += weighted[*c];
  }
  for (const auto& [reason, common] : kNvidiaStalls) {
    auto c = id(metric_of(reason));
    if (!c || !weighted.count(*c) || stalled <= 0) continue;
    const double f = weighted[*c] / stalled;
    s.vendor_stalls[reason] = f;
    s.stalls[common] += f;
  }

  std::map<std::string, double> mix;
  double instructions = 0;
  auto add = [&](const std::string& category, std::optional<double> count) {
    if (!count) return;
    mix[category] += *count;
    instructions += *count;
  };
  for (const auto& [op, category] : kNvidiaMix) add(category, total(op_metric(op)));
  // ncu counts ptxas's HFMA2.MMA register moves as hfma (all of the softmax testbed's HFMAs on an
  // H100): they are other, as in the mix by opcode below. A partial warp moves fewer than 32 threads.
  if (auto moves = total(kTensorMoves); moves && mix.count("fp16")) {
    const double counted = std::min(total(op_metric("hfma")).value_or(0), *moves * 32);
    mix["fp16"] -= counted;
    mix["other"] += counted;
  }
  for (const char* op : {"misc", "uniform", "inter_thread_communication"}) add("other", total(op_metric(op)));
  if (auto t = total(kTensorInstructions)) {  // warp instructions, 32 threads each
    add("tensor", std::max(0.0, *t - total(kTensorMoves).value_or(0)) * 32);
  }
  if (instructions == 0) {  // ncu's full set: no class counters, thread instructions by opcode
    const std::string prefix = std::string(trace::kNcuOpcodeMetric) + '[';
    for (uint32_t c = 0; c < trace.counter_names.size(); ++c) {
      const std::string& name = trace.counter_names[c];
      if (name.starts_with(prefix) && name.ends_with(']') && summed.count(c)) {
        // The modifiers tell ptxas's HFMA2.MMA register moves from FP16 arithmetic.
        const auto opcode = std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - 1);
        add(std::string(sass_opcode_category(opcode)), summed[c]);
      }
    }
  }
  if (instructions > 0) {
    for (const auto& [category, count] : mix) s.instruction_mix[category] = count / instructions;
  }
  return s;
}

bool add_source_hot_spots(StallAnalysis& s, const std::vector<trace::SourceView>& views) {
  const trace::SourceView* view = views.size() == 1 ? &views[0] : nullptr;
  for (const auto& v : views) {
    if (!view && function_base(v.function) == function_base(s.kernel)) view = &v;
  }
  if (!view || view->instructions.empty()) return false;
  uint64_t first = UINT64_MAX;
  int64_t total = 0;
  for (const auto& ins : view->instructions) {
    first = std::min(first, ins.address);
    total += ins.samples;
  }
  s.hot.clear();
  for (const auto* ins : detail::heaviest(view->instructions, 10, [](const auto& i) { return i.samples; })) {
    const std::string source = ins->line && !view->file.empty() ? fmt::format("{}:{}", view->file, *ins->line) : "";
    s.hot.push_back({ins->sass, ins->address - first, source, ins->samples, ins->executed, common_stall(ins->top_reason)});
  }
  s.hot_lines.clear();
  for (const auto* l : detail::heaviest(view->lines, 10, [](const auto& line) { return line.samples; })) {
    s.hot_lines.push_back({view->file, l->line, l->text, l->samples,
                           total > 0 ? static_cast<double>(l->samples) / static_cast<double>(total) : 0});
  }
  return true;
}

}  // namespace rpl::analysis
