// Every bottleneck rule, made to fire and made not to.
#include <algorithm>

#include <gtest/gtest.h>

#include <rpl/analysis/bottleneck.hpp>
#include <rpl/analysis/stalls.hpp>

namespace rpl::analysis {
namespace {

// A kernel with nothing wrong: long dispatches on a busy GPU, a full grid, full occupancy, and a
// roofline placement that the tests set.
BottleneckInputs healthy() {
  BottleneckInputs in;
  in.kernel = "k";
  in.vendor = "NVIDIA";
  in.time_ms = 10;
  in.mean_dispatch_us = 500;
  in.gpu_busy_fraction = 0.95;
  in.grid_workgroups = 4096;
  in.compute_units = 132;
  in.occupancy = 1.0;
  in.occupancy_limiter = "warps";
  return in;
}

KernelRoofline placed(const std::string& position, double percent, const std::string& binding = "dram") {
  KernelRoofline r;
  r.name = "k";
  r.measured_dispatches = 1;
  r.position = position;
  r.percent_of_roof = percent;
  r.binding_ceiling = binding;
  r.operational_intensity = position == "memory_bound" ? 0.18 : 200;
  r.achieved_flops_per_s = 5e13;
  r.achieved_bytes_per_s[0] = 2.4e12;
  return r;
}

const RuleOutcome& rule(const Bottleneck& b, const std::string& name) {
  for (const auto& r : b.rules) {
    if (r.rule == name) return r;
  }
  throw std::runtime_error("no rule " + name);
}

TEST(Bottleneck, EveryRuleIsEvaluatedInOrder) {
  auto b = classify_bottleneck(healthy());
  std::vector<std::string> names;
  for (const auto& r : b.rules) names.push_back(r.rule);
  EXPECT_EQ(names, (std::vector<std::string>{"launch_overhead_bound", "latency_bound_small_grid", "memory_bandwidth_bound",
                                             "compute_bound", "occupancy_limited", "memory_latency_bound",
                                             "divergence_bound"}));
}

TEST(Bottleneck, NoCountersAndNothingWrongIsMixedWithLowConfidence) {
  auto b = classify_bottleneck(healthy());
  EXPECT_EQ(b.bottleneck, "mixed");
  EXPECT_DOUBLE_EQ(b.confidence, 0.2);
  EXPECT_NE(b.reasons[0].find("--roofline"), std::string::npos);
}

// Where nothing stands out but the stall pass ran, the next step follows the reason its warps
// wait on most (wavefronts on AMD); without it, the next step is that pass.
TEST(Bottleneck, MixedWithStallsSaysWhatItsWarpsWaitOnMost) {
  auto in = healthy();
  in.roofline = placed("memory_bound", 20, "dram");
  in.roofline->position = "compute_bound";  // far from both roofs, not memory-latency-bound
  auto b = classify_bottleneck(in);
  ASSERT_EQ(b.bottleneck, "mixed");
  EXPECT_EQ(b.next_steps[0], "look at its stalls (--deep) to see what its warps wait for");
  in.top_stall = "barrier";
  in.top_stall_share = 0.31;
  b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "mixed");
  EXPECT_EQ(b.next_steps[0], "its warps wait most on barrier (31 % of stalled time): balance the work between barriers, or have "
                             "fewer of them");
  in.vendor = "AMD";
  in.top_stall = "lds_dependency";
  EXPECT_EQ(classify_bottleneck(in).next_steps[0], "its wavefronts wait most on lds_dependency (31 % of stalled time): fewer LDS "
                                                   "round trips and bank conflicts: pad or swizzle its layout");

  StallAnalysis stalls;
  stalls.stalls = {{"barrier", 0.2}, {"memory_dependency", 0.5}, {"not_selected", 0.3}};
  ProfileSummary summary;
  summary.kernel = KernelSummary{};
  summary.kernel->name = "k";
  const auto from = bottleneck_inputs(trace::Trace{}, summary, nullptr, nullptr, &stalls);
  EXPECT_EQ(from.top_stall, "memory_dependency");
  EXPECT_DOUBLE_EQ(from.top_stall_share, 0.5);
}

TEST(Bottleneck, MemoryBandwidthBound) {
  auto in = healthy();
  in.roofline = placed("memory_bound", 71.2);
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "memory_bandwidth_bound");
  EXPECT_NE(b.reasons[0].find("71.2 %"), std::string::npos) << b.reasons[0];
  EXPECT_NE(b.reasons[0].find("2.40 TB/s"), std::string::npos) << b.reasons[0];
  EXPECT_NEAR(b.confidence, 0.68, 1e-9);
  in.roofline = placed("memory_bound", 59);
  EXPECT_FALSE(rule(classify_bottleneck(in), "memory_bandwidth_bound").fired);
  in.roofline = placed("compute_bound", 90, "fp32");
  EXPECT_FALSE(rule(classify_bottleneck(in), "memory_bandwidth_bound").fired);
}

// DRAM bytes counted but no FLOPs (an ncu file of a user's own --metrics): no roofline position,
// and the DRAM peak alone judges, a little less surely.
TEST(Bottleneck, MemoryBandwidthBoundFromDramBytesAlone) {
  auto in = healthy();
  KernelRoofline r;
  r.name = "k";
  r.measured_dispatches = 1;
  r.achieved_bytes_per_s[0] = 4.03e12;
  in.roofline = r;
  in.dram_percent_of_peak = 83.8;
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "memory_bandwidth_bound");
  EXPECT_NE(b.reasons[0].find("DRAM 4.03 TB/s = 83.8 % of its peak (no FLOPs counted"), std::string::npos) << b.reasons[0];
  EXPECT_NEAR(b.confidence, 0.68, 1e-9) << "0.5 + 0.3 * 23.8 / 40, rounded: under the 0.78 of a roofline at 83.8 %";
  in.dram_percent_of_peak = 35;
  const auto away = classify_bottleneck(in);
  const auto& low = rule(away, "memory_bandwidth_bound");
  EXPECT_FALSE(low.fired);
  EXPECT_NE(low.reason.find("35.0 % of its peak"), std::string::npos) << low.reason;
  EXPECT_FALSE(rule(away, "compute_bound").fired) << "FLOPs unknown: never compute-bound";
}

// An int8 GEMM (integer operations of the tensor cores, no FLOPs): the roofline places it nowhere,
// and the rules say why instead of asking for a roofline the user ran.
TEST(Bottleneck, AKernelTheRooflineDoesNotPlaceSaysWhy) {
  auto in = healthy();
  KernelRoofline r;
  r.name = "k";
  r.measured_dispatches = 2;
  r.unplaced = "integer matrix work, which is no FLOPs";
  r.achieved_bytes_per_s[0] = 7.3e10;
  in.roofline = r;
  auto b = classify_bottleneck(in);
  EXPECT_EQ(rule(b, "compute_bound").reason, "integer matrix work, which is no FLOPs: no roofline position");
  EXPECT_EQ(rule(b, "memory_bandwidth_bound").reason, "integer matrix work, which is no FLOPs: no roofline position");
  in.dram_percent_of_peak = 2.2;
  EXPECT_EQ(rule(classify_bottleneck(in), "memory_bandwidth_bound").reason,
            "DRAM 73.00 GB/s = 2.2 % of its peak (integer matrix work, which is no FLOPs: no roofline position)");
  in.roofline.reset();
  EXPECT_EQ(rule(classify_bottleneck(in), "compute_bound").reason, "no roofline (profile with --roofline)");
}

TEST(Bottleneck, ComputeBound) {
  auto in = healthy();
  in.roofline = placed("compute_bound", 80, "fp32");
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "compute_bound");
  EXPECT_NE(b.next_steps[0].find("tensor cores"), std::string::npos);
  in.roofline = placed("compute_bound", 80, "matrix_fp16");
  EXPECT_NE(classify_bottleneck(in).next_steps[0].find("lower precision"), std::string::npos);
  in.roofline = placed("compute_bound", 40, "fp32");
  EXPECT_FALSE(rule(classify_bottleneck(in), "compute_bound").fired);
}

// ncu's speed of light (its percentages of peak, no FLOPs or bytes counted) judges a kernel the
// roofline cannot place: the figures of a PyTorch program's ncu details page on an H200.
SpeedOfLight ncu(double sm, double dram) {
  SpeedOfLight s;
  s.sm_percent = sm;
  s.dram_percent = dram;
  s.memory_percent = std::max(sm, dram);
  s.measured_dispatches = 3;
  return s;
}

TEST(Bottleneck, NcuSpeedOfLightJudgesWithoutARooflinePosition) {
  auto gemm = healthy();
  gemm.occupancy = 0.1875;  // cuBLAS's one block an SM, by design
  gemm.occupancy_limiter = "registers";
  gemm.speed_of_light = ncu(89.9, 16.7);
  auto b = classify_bottleneck(gemm);
  EXPECT_EQ(b.bottleneck, "compute_bound");
  EXPECT_NE(b.reasons[0].find("SM throughput at 89.9 % of its peak (ncu's speed of light"), std::string::npos) << b.reasons[0];
  EXPECT_NEAR(b.confidence, 0.72, 1e-9) << "0.5 + 0.3 * 29.9 / 40, rounded";
  EXPECT_EQ(rule(b, "occupancy_limited").reason, "low occupancy, but the kernel is near a roof already");
  EXPECT_FALSE(rule(b, "memory_bandwidth_bound").fired);
  EXPECT_NE(rule(b, "memory_bandwidth_bound").reason.find("DRAM at 16.7 % of its peak (ncu's speed of light"), std::string::npos);

  auto clamp = healthy();
  clamp.speed_of_light = ncu(28.7, 85.0);
  b = classify_bottleneck(clamp);
  EXPECT_EQ(b.bottleneck, "memory_bandwidth_bound");
  EXPECT_NE(b.reasons[0].find("DRAM at 85.0 % of its peak (ncu's speed of light"), std::string::npos) << b.reasons[0];
  EXPECT_FALSE(rule(b, "compute_bound").fired);

  // Far from both peaks: occupancy is then the suspect, with ncu's figure beside it; with occupancy
  // full, nothing stands out, but counters were measured.
  gemm.speed_of_light = ncu(23.6, 0.7);
  b = classify_bottleneck(gemm);
  EXPECT_EQ(b.bottleneck, "occupancy_limited");
  EXPECT_NE(b.reasons[0].find("its SM throughput is only 23.6 % of its peak (ncu's speed of light)"), std::string::npos) << b.reasons[0];
  auto idle = healthy();
  idle.speed_of_light = ncu(23.6, 0.7);
  b = classify_bottleneck(idle);
  EXPECT_EQ(b.bottleneck, "mixed");
  EXPECT_DOUBLE_EQ(b.confidence, 0.4);
  EXPECT_NE(b.next_steps[0].find("stalls"), std::string::npos);
}

// Where the roofline places the kernel, its position decides and ncu's percentages are not read;
// DRAM bytes counted come before ncu's DRAM percentage.
TEST(Bottleneck, ARooflinePositionOrCountedBytesComeBeforeNcuSpeedOfLight) {
  auto in = healthy();
  in.speed_of_light = ncu(95, 95);
  in.roofline = placed("memory_bound", 30);
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "memory_latency_bound");
  EXPECT_FALSE(rule(b, "compute_bound").fired);
  KernelRoofline bytes_only;
  bytes_only.name = "k";
  bytes_only.measured_dispatches = 1;
  in.roofline = bytes_only;
  in.dram_percent_of_peak = 40;
  in.speed_of_light = ncu(10, 90);
  b = classify_bottleneck(in);
  EXPECT_FALSE(rule(b, "memory_bandwidth_bound").fired);
  EXPECT_NE(rule(b, "memory_bandwidth_bound").reason.find("40.0 %"), std::string::npos) << rule(b, "memory_bandwidth_bound").reason;
}

// A vendor library's kernel: its registers are not the user's to change, and an FP32 GEMM on CUDA
// cores gains most from tensor cores, whatever limits it (cuBLAS's GEMM of a PyTorch training step).
TEST(Bottleneck, ALibrarysKernelGetsAdviceItsUserCanFollow) {
  auto in = healthy();
  in.occupancy = 0.125;
  in.occupancy_limiter = "registers";
  in.library = LibraryKernel{"cuBLAS", false};
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "occupancy_limited");
  EXPECT_EQ(b.next_steps[0].rfind("a cuBLAS kernel: its registers and tiles are the library's choice", 0), 0u) << b.next_steps[0];
  in.library->fp32_gemm_simt = true;
  b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "occupancy_limited") << "the label is still the rule's";
  EXPECT_NE(b.next_steps[0].find("tensor cores: TF32 or BF16"), std::string::npos) << b.next_steps[0];
  EXPECT_NE(b.reasons.back().find("an FP32 GEMM of cuBLAS on CUDA cores"), std::string::npos) << b.reasons.back();
  in.library.reset();
  EXPECT_EQ(classify_bottleneck(in).next_steps[0].rfind("use fewer registers per thread", 0), 0u);
}

TEST(Bottleneck, MemoryLatencyBound) {
  auto in = healthy();
  in.roofline = placed("memory_bound", 30);
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "memory_latency_bound");
  EXPECT_NE(b.reasons[0].find("30.0 %"), std::string::npos);
  in.roofline = placed("memory_bound", 75);
  EXPECT_FALSE(rule(classify_bottleneck(in), "memory_latency_bound").fired);
}

TEST(Bottleneck, OccupancyLimitedOnlyAwayFromTheRoofs) {
  auto in = healthy();
  in.occupancy = 0.25;
  in.occupancy_limiter = "registers";
  in.roofline = placed("memory_bound", 30);
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "occupancy_limited");  // before memory latency: more occupancy is the remedy
  EXPECT_NE(b.reasons[0].find("25.0 %"), std::string::npos);
  EXPECT_NE(b.next_steps[0].find("fewer registers"), std::string::npos);
  EXPECT_TRUE(rule(b, "memory_latency_bound").fired);
  EXPECT_EQ(b.reasons.size(), 2u);
  in.roofline = placed("memory_bound", 85);  // the roof binds: occupancy is not the problem
  EXPECT_FALSE(rule(classify_bottleneck(in), "occupancy_limited").fired);
  in.occupancy = 0.75;
  in.roofline = placed("memory_bound", 30);
  EXPECT_FALSE(rule(classify_bottleneck(in), "occupancy_limited").fired);
}

TEST(Bottleneck, LaunchOverheadBound) {
  auto in = healthy();
  in.mean_dispatch_us = 4.1;
  in.gpu_busy_fraction = 0.31;
  in.roofline = placed("memory_bound", 70);
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "launch_overhead_bound");
  EXPECT_NE(b.reasons[0].find("4.1 us"), std::string::npos);
  EXPECT_NE(b.next_steps[0].find("CUDA graph"), std::string::npos);
  in.vendor = "AMD";
  EXPECT_NE(classify_bottleneck(in).next_steps[0].find("HIP graph"), std::string::npos);
  in.gpu_busy_fraction = 0.8;  // short kernels, but back to back
  EXPECT_FALSE(rule(classify_bottleneck(in), "launch_overhead_bound").fired);
  in.gpu_busy_fraction = 0.2;
  in.mean_dispatch_us = 50;
  EXPECT_FALSE(rule(classify_bottleneck(in), "launch_overhead_bound").fired);
}

TEST(Bottleneck, SmallGrid) {
  auto in = healthy();
  in.grid_workgroups = 64;
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "latency_bound_small_grid");
  EXPECT_NE(b.reasons[0].find("64 blocks on 132 SMs"), std::string::npos) << b.reasons[0];
  in.vendor = "AMD";
  in.compute_units = 304;
  EXPECT_NE(classify_bottleneck(in).reasons[0].find("64 workgroups on 304 CUs"), std::string::npos);
  in.grid_workgroups = 304;
  EXPECT_FALSE(rule(classify_bottleneck(in), "latency_bound_small_grid").fired);
}

TEST(Bottleneck, DivergenceNeedsTheStallPass) {
  auto in = healthy();
  EXPECT_FALSE(rule(classify_bottleneck(in), "divergence_bound").fired);
  in.branch_efficiency = 0.45;
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.bottleneck, "divergence_bound");
  in.branch_efficiency = 0.95;
  EXPECT_FALSE(rule(classify_bottleneck(in), "divergence_bound").fired);
}

TEST(Bottleneck, SmallShareOfTheCriticalPathIsSaid) {
  auto in = healthy();
  in.roofline = placed("memory_bound", 71.2);
  in.critical_path_score = 0.04;
  auto b = classify_bottleneck(in);
  EXPECT_EQ(b.reasons.size(), 2u);
  EXPECT_NE(b.reasons.back().find("4.0 % of the critical path"), std::string::npos);
  in.critical_path_score = 0.9;
  EXPECT_EQ(classify_bottleneck(in).reasons.size(), 1u);
}

}  // namespace
}  // namespace rpl::analysis
