// Stall reasons, instruction mix and branch efficiency from hand-made ncu counter values, and the
// instruction mix of real ncu full-set files.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/analysis/stalls.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "test_support.hpp"

namespace rpl::analysis {
namespace {

class StallTrace {
 public:
  StallTrace() {
    trace.sources.push_back({"run1.db", {"g"}, {}, {}, {}});
    trace::KernelSymbol k;
    k.mangled_name = "k";
    trace.symbols.push_back(k);
    trace::KernelSymbol other;
    other.mangled_name = "other";
    trace.symbols.push_back(other);
  }
  void dispatch(int32_t symbol, int64_t duration, const std::map<std::string, double>& counters) {
    trace::Dispatch d{};
    d.symbol = symbol;
    d.start_ns = clock_;
    d.end_ns = clock_ + duration;
    clock_ = d.end_ns + 1;
    const auto index = static_cast<uint32_t>(trace.dispatches.size());
    trace.dispatches.push_back(d);
    for (const auto& [name, value] : counters) {
      uint32_t id = 0;
      while (id < trace.counter_names.size() && trace.counter_names[id] != name) ++id;
      if (id == trace.counter_names.size()) trace.counter_names.push_back(name);
      trace.counter_values.push_back({index, id, value});
    }
  }
  trace::Trace trace;

 private:
  int64_t clock_ = 0;
};

std::string stall(const char* reason) { return std::string("smsp__warp_issue_stalled_") + reason + "_per_warp_active.pct"; }
std::string op(const char* o) { return std::string("smsp__sass_thread_inst_executed_op_") + o + "_pred_on.sum"; }

TEST(Stalls, FractionsMixAndBranchEfficiency) {
  StallTrace t;
  // Two dispatches, the second three times as long: ratios are weighted by time, counts summed.
  t.dispatch(0, 1000, {{stall("long_scoreboard"), 40}, {stall("short_scoreboard"), 40}, {stall("barrier"), 20},
                       {"smsp__sass_average_branch_targets_threads_uniform.pct", 100},
                       {"smsp__issue_active.avg.pct_of_peak_sustained_active", 20},
                       {op("ffma"), 100}, {op("memory"), 50}, {op("control"), 50}});
  t.dispatch(0, 3000, {{stall("long_scoreboard"), 80}, {stall("short_scoreboard"), 0}, {stall("barrier"), 20},
                       {"smsp__sass_average_branch_targets_threads_uniform.pct", 60},
                       {"smsp__issue_active.avg.pct_of_peak_sustained_active", 40},
                       {op("ffma"), 100}, {op("memory"), 50}, {op("control"), 50}, {"sm__inst_executed_pipe_tensor.sum", 0},
                       {"sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum", 0}});
  t.dispatch(1, 1000, {{stall("barrier"), 100}});
  auto s = analyze_stalls(t.trace, "k");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->measured_dispatches, 2u);
  // Weighted: long 70, short 10, barrier 20 of 100.
  EXPECT_DOUBLE_EQ(s->stalls.at("memory_dependency"), 0.7);
  EXPECT_DOUBLE_EQ(s->stalls.at("lds_dependency"), 0.1);
  EXPECT_DOUBLE_EQ(s->stalls.at("barrier"), 0.2);
  EXPECT_DOUBLE_EQ(s->vendor_stalls.at("long_scoreboard"), 0.7);
  EXPECT_DOUBLE_EQ(*s->branch_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(*s->issue_slot_utilization, 0.35);
  EXPECT_FALSE(s->ipc.has_value());
  EXPECT_DOUBLE_EQ(s->instruction_mix.at("fp32"), 0.5);
  EXPECT_DOUBLE_EQ(s->instruction_mix.at("load_store"), 0.25);
  EXPECT_DOUBLE_EQ(s->instruction_mix.at("branch"), 0.25);
  EXPECT_DOUBLE_EQ(s->instruction_mix.at("tensor"), 0);
}

// A report of ncu's full set (its WarpStateStats section) gives warps per issued instruction for
// each reason and issue activity per cycle, not profile --deep's percentages: the same fractions.
TEST(Stalls, NcusWarpStateSectionGivesTheSameFractions) {
  StallTrace t;
  auto section = [](const char* reason) { return std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio"; };
  t.dispatch(0, 1000, {{section("long_scoreboard"), 7.5}, {section("short_scoreboard"), 1.5}, {section("selected"), 1},
                       {"smsp__issue_active.avg.per_cycle_active", 0.25}});
  const auto s = analyze_stalls(t.trace, "k");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->stalls.at("memory_dependency"), 0.75);
  EXPECT_DOUBLE_EQ(s->stalls.at("lds_dependency"), 0.15);
  EXPECT_DOUBLE_EQ(s->vendor_stalls.at("selected"), 0.1);
  EXPECT_DOUBLE_EQ(*s->issue_slot_utilization, 0.25);
  // Where both families are there, profile --deep's are taken, not a sum of the two.
  t.dispatch(0, 1000, {{stall("long_scoreboard"), 50}, {stall("barrier"), 50}, {section("long_scoreboard"), 9}});
  const auto both = analyze_stalls(t.trace, "k");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->measured_dispatches, 1u);
  EXPECT_DOUBLE_EQ(both->stalls.at("barrier"), 0.5);
}

TEST(Stalls, NoneWithoutStallCounters) {
  StallTrace t;
  t.dispatch(0, 1000, {{op("ffma"), 100}});
  EXPECT_FALSE(analyze_stalls(t.trace, "k"));
  EXPECT_FALSE(analyze_stalls(t.trace, "absent"));
}

// ncu's full set has no thread-instruction class counters: it has thread instructions per SASS
// opcode (exported with --print-metric-instances details), and ncu's own categories of them. On
// each kernel of three programs on an H100 (our SGEMM; a Triton matmul, with cuBLAS's FP32 GEMM
// and PyTorch's kernels; a PyTorch program, with cuBLAS's bf16 GEMM), the mix by opcode agrees
// with ncu's categories to the instruction.
TEST(Stalls, TheFullSetsMixByOpcodeAgreesWithNcusOwnCategories) {
  const std::string ops = "sass__thread_inst_executed_true_per_opcode_with_modifier_all[";
  const std::string categories = "sass__thread_inst_executed_per_opcode_category[";
  size_t checked = 0;
  for (const char* program : {"sgemm", "triton_matmul", "torch_roofline"}) {
    const auto t = trace::read_traces({test::source_dir() / ("tests/fixtures/ncu_full_instances_" + std::string(program) + "_h100.csv")});
    std::set<std::string> kernels;
    for (const auto& d : t.dispatches) kernels.insert(t.symbols[static_cast<size_t>(d.symbol)].name());
    for (const auto& kernel : kernels) {
      const auto s = analyze_stalls(t, kernel);
      ASSERT_TRUE(s) << kernel;
      // ncu's categories, ptxas's HFMA2.MMA moves and the warpgroup fences, over the kernel's launches
      std::map<std::string, double> ncu;
      double moves = 0, fences = 0, total = 0;
      for (const auto& v : t.counter_values) {
        const std::string& name = t.counter_names[v.counter];
        if (t.symbols[static_cast<size_t>(t.dispatches[v.dispatch].symbol)].name() != kernel) continue;
        if (name.starts_with(categories)) {
          ncu[name.substr(categories.size(), name.size() - categories.size() - 1)] += v.value;
          total += v.value;
        }
        if (name == ops + "HFMA2.MMA]") moves += v.value;
        if (name.starts_with(ops + "WARPGROUP.")) fences += v.value;
      }
      ASSERT_GT(total, 0) << kernel;
      auto mix = [&](const char* c) { return s->instruction_mix.count(c) ? s->instruction_mix.at(c) * total : 0.0; };
      const double slack = 1e-9 * total;
      EXPECT_NEAR(mix("fp32") + mix("fp64") + mix("fp16") + moves, ncu["Floating Point"], slack) << kernel;
      EXPECT_NEAR(mix("integer"), ncu["Integer"], slack) << kernel;
      EXPECT_NEAR(mix("branch"), ncu["Control"], slack) << kernel;
      EXPECT_NEAR(mix("load_store"), ncu["Load/Store"] + ncu["Tensor Memory Access"], slack) << kernel;
      EXPECT_NEAR(mix("tensor") + fences, ncu["Warpgroup"], slack) << kernel;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 13u) << "the kernels of the three programs";

  const auto sgemm = trace::read_traces({test::source_dir() / "tests/fixtures/ncu_full_instances_sgemm_h100.csv"});
  const auto s = analyze_stalls(sgemm, sgemm.symbols[static_cast<size_t>(sgemm.dispatches[0].symbol)].name());
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->instruction_mix.at("fp32"), 8589934592.0 / 14487519232) << "2048³ FFMAs of all thread instructions";
  EXPECT_FALSE(s->instruction_mix.count("fp16")) << "its HFMA2 are all HFMA2.MMA, register moves";
}

// profile --deep's mix is of ncu's thread-instruction classes, whose hfma holds ptxas's HFMA2.MMA
// register moves: on an H100, all of our softmax testbed's and PyTorch's random fills' HFMAs, 32
// threads to each of the tensor pipe's HFMA2.MMA warp instructions (31 fewer in one launch, a
// partial warp). They are other, as the full set's mix by opcode has them, not FP16.
TEST(Stalls, Hfma2MmaRegisterMovesAreOtherInTheMixNotFp16) {
  const std::string op = "smsp__sass_thread_inst_executed_op_";
  size_t checked = 0;
  for (const char* program : {"softmax", "torch"}) {
    const auto t = trace::read_traces({test::source_dir() / ("tests/fixtures/ncu_deep_roofline_" + std::string(program) + "_h100.csv")});
    std::set<std::string> kernels;
    for (const auto& d : t.dispatches) kernels.insert(t.symbols[static_cast<size_t>(d.symbol)].name());
    for (const auto& kernel : kernels) {
      std::map<std::string, double> counts;  // the class counters over the kernel's launches
      double total = 0;
      for (const auto& v : t.counter_values) {
        const std::string& name = t.counter_names[v.counter];
        if (t.symbols[static_cast<size_t>(t.dispatches[v.dispatch].symbol)].name() != kernel) continue;
        if (name.starts_with(op) && name.ends_with("_pred_on.sum")) {
          counts[name.substr(op.size(), name.size() - op.size() - 12)] += v.value;
          total += v.value;
        }
      }
      if (counts["hfma"] == 0) continue;
      const auto s = analyze_stalls(t, kernel);
      ASSERT_TRUE(s) << kernel;
      EXPECT_EQ(s->instruction_mix.at("fp16"), 0) << kernel << ": " << counts["hfma"] << " HFMAs, all of them moves";
      const double other = counts["conversion"] + counts["misc"] + counts["uniform"] + counts["inter_thread_communication"];
      EXPECT_NEAR(s->instruction_mix.at("other") * total, other + counts["hfma"], 1e-9 * total) << kernel;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3u) << "softmax_naive and PyTorch's two random fills";
}

TEST(Stalls, LowBranchEfficiencyMakesTheDivergenceRuleFire) {
  StallTrace t;
  t.dispatch(0, 1000, {{stall("branch_resolving"), 50}, {stall("long_scoreboard"), 50},
                       {"smsp__sass_average_branch_targets_threads_uniform.pct", 45}});
  const auto s = analyze_stalls(t.trace, "k");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->stalls.at("branch"), 0.5);
  ProfileSummary summary;
  summary.kernel = KernelSummary{};
  summary.kernel->name = "k";
  summary.kernel->dispatches = 1;
  summary.kernel->total_ms = 1;
  auto b = classify_bottleneck(bottleneck_inputs(t.trace, summary, nullptr, nullptr, &*s));
  EXPECT_EQ(b.bottleneck, "divergence_bound");
  EXPECT_NE(b.reasons[0].find("branch efficiency 45 %"), std::string::npos) << b.reasons[0];
}

// ncu writes a branch efficiency of 0 % for a launch that took no branch target (0 of 0). Where no
// target diverged, there is no divergence to judge: the efficiency is 100 % where a launch took
// one, else not known, and the divergence rule does not fire. Triton's add kernel under ncu's full
// set on an H100 (its stall columns of the raw page): 0 % and no divergent target, beside
// PyTorch's fill kernel at 100 %.
TEST(Stalls, NoDivergentBranchTargetIsNoDivergence) {
  const std::string uniform = "smsp__sass_average_branch_targets_threads_uniform.pct";
  const std::string divergent = "smsp__sass_branch_targets_threads_divergent.sum";
  auto efficiency = [&](const std::vector<std::map<std::string, double>>& launches) {
    StallTrace t;
    for (auto counters : launches) {
      counters[stall("long_scoreboard")] = 1;
      t.dispatch(0, 1000, counters);
    }
    return analyze_stalls(t.trace, "k")->branch_efficiency;
  };
  EXPECT_FALSE(efficiency({{{uniform, 0}, {divergent, 0}}}));
  EXPECT_EQ(efficiency({{{uniform, 0}, {divergent, 0}}, {{uniform, 100}, {divergent, 0}}}), 1.0) << "not the mean, 50 %";
  EXPECT_EQ(efficiency({{{uniform, 45}, {divergent, 120}}}), 0.45);
  EXPECT_EQ(efficiency({{{uniform, 0}, {divergent, 0}}, {{uniform, 45}, {divergent, 120}}}), 0.45)
      << "a launch without branch targets has no say: not 22.5 %";
  EXPECT_EQ(efficiency({{{uniform, 0}, {divergent, 3}}, {{uniform, 100}, {divergent, 0}}}), 0.5) << "0 % of some";
  EXPECT_EQ(efficiency({{{uniform, 0}}}), 0.0) << "without the count of divergent targets, ncu's figure";

  const auto t = trace::read_traces({test::source_dir() / "tests/fixtures/ncu_full_stalls_triton_add_h100.csv"});
  const auto add = analyze_stalls(t, "add_kernel");
  ASSERT_TRUE(add);
  EXPECT_FALSE(add->branch_efficiency);
  ProfileSummary summary;
  summary.kernel = KernelSummary{};
  summary.kernel->name = "add_kernel";
  summary.kernel->dispatches = 10;
  summary.kernel->total_ms = 1;
  const auto b = classify_bottleneck(bottleneck_inputs(t, summary, nullptr, nullptr, &*add));
  const auto divergence = std::find_if(b.rules.begin(), b.rules.end(), [](const auto& r) { return r.rule == "divergence_bound"; });
  ASSERT_NE(divergence, b.rules.end());
  EXPECT_FALSE(divergence->fired) << divergence->reason;
  EXPECT_EQ(divergence->reason, "branch efficiency unknown: no branch target counted") << "the stall pass ran";
  const auto fill = analyze_stalls(t, t.symbols[static_cast<size_t>(t.dispatches[0].symbol)].name());
  ASSERT_TRUE(fill);
  EXPECT_EQ(fill->branch_efficiency, 1.0);
}

TEST(Stalls, EveryMetricIsAskedForOnce) {
  auto m = nvidia_stall_metrics();
  std::sort(m.begin(), m.end());
  EXPECT_EQ(std::adjacent_find(m.begin(), m.end()), m.end());
  EXPECT_NE(std::find(m.begin(), m.end(), stall("long_scoreboard")), m.end());
}

}  // namespace
}  // namespace rpl::analysis
