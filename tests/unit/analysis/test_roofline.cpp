// The roofline from counter values on hand-built traces whose FLOPs and bytes are known.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include <rpl/analysis/roofline.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "test_support.hpp"
#include "trace_builder.hpp"

namespace rpl::analysis {
namespace {

class CounterTrace {
 public:
  explicit CounterTrace(const std::string& arch, const std::string& product, int units, double clock_mhz,
                        std::optional<double> dram = std::nullopt) {
    trace.sources.push_back({"run1.db", {"g"}, {}, {}, {}});
    trace::Agent gpu;
    gpu.guid = "g";
    gpu.type = "GPU";
    gpu.name = arch;
    gpu.product_name = product;
    gpu.compute_units = units;
    gpu.max_clock_mhz = clock_mhz;
    gpu.dram_bytes_per_s = dram;
    trace.agents.push_back(gpu);
    trace.geometries.push_back({});
  }
  // A dispatch of `name` lasting duration_ns with these counter values.
  void dispatch(const std::string& name, int64_t duration_ns, const std::map<std::string, double>& counters) {
    trace::Dispatch d{};
    d.id = static_cast<int64_t>(trace.dispatches.size()) + 1;
    d.symbol = test::symbol_named(trace, name);
    d.start_ns = clock_;
    d.end_ns = clock_ + duration_ns;
    clock_ = d.end_ns + 1000;
    const auto index = static_cast<uint32_t>(trace.dispatches.size());
    trace.dispatches.push_back(d);
    for (const auto& [counter, value] : counters) trace.counter_values.push_back({index, counter_id(counter), value});
  }
  static const KernelRoofline& kernel(const RooflineResult& r, const std::string& name) {
    for (const auto& k : r.kernels) {
      if (k.name == name) return k;
    }
    throw std::runtime_error("no kernel " + name);
  }
  trace::Trace trace;

 private:
  uint32_t counter_id(const std::string& name) {
    for (size_t i = 0; i < trace.counter_names.size(); ++i) {
      if (trace.counter_names[i] == name) return static_cast<uint32_t>(i);
    }
    trace.counter_names.push_back(name);
    return static_cast<uint32_t>(trace.counter_names.size()) - 1;
  }
  int64_t clock_ = 1000;
};

constexpr size_t kFp32 = static_cast<size_t>(hal::ComputeKind::fp32);
constexpr size_t kFp16Matrix = static_cast<size_t>(hal::ComputeKind::matrix_fp16);
constexpr size_t kDram = static_cast<size_t>(hal::MemoryLevel::dram);

std::map<std::string, double> nvidia(double ffma, double fadd, double read, double write) {
  return {{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", ffma},
          {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", fadd},
          {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 0},
          {"dram__bytes_read.sum", read},
          {"dram__bytes_write.sum", write}};
}

TEST(Roofline, NvidiaCeilingsFromTheTableAndTheDevice) {
  CounterTrace t("sm_90", "NVIDIA H100 80GB HBM3", 132, 1980, 3.35e12);
  auto r = analyze_roofline(t.trace);
  EXPECT_NEAR(*r.ceilings.flops_per_s[kFp32], 132 * 1980e6 * 256, 1);  // 66.9 TFLOP/s
  EXPECT_NEAR(*r.ceilings.flops_per_s[kFp16Matrix], 132 * 1980e6 * 4096, 1);
  EXPECT_EQ(*r.ceilings.bytes_per_s[kDram], 3.35e12);
  EXPECT_FALSE(r.ceilings.bytes_per_s[static_cast<size_t>(hal::MemoryLevel::l2)].has_value());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no counter values"), std::string::npos);
}

TEST(Roofline, FmaKernelIsComputeBoundAndCopyIsMemoryBound) {
  CounterTrace t("sm_90", "H100", 132, 1980, 3.35e12);
  // 1e12 FMAs (2e12 FLOPs) in 40 ms, 1 MB of DRAM traffic: 50 TFLOP/s of 66.9.
  t.dispatch("fma", 40'000'000, nvidia(1e12, 0, 5e5, 5e5));
  // No arithmetic, 2.68 GB in 1 ms: 2.68 TB/s of 3.35.
  t.dispatch("copy", 1'000'000, nvidia(0, 0, 1.34e9, 1.34e9));
  // A triad: 1e8 FMAs over 1.2e9 bytes in 0.5 ms.
  t.dispatch("triad", 500'000, nvidia(1e8, 0, 8e8, 4e8));
  auto r = analyze_roofline(t.trace);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.kernels.size(), 3u);
  EXPECT_EQ(r.kernels[0].name, "fma");  // longest first

  const auto& fma = CounterTrace::kernel(r, "fma");
  EXPECT_DOUBLE_EQ(*fma.flops[kFp32], 2e12);
  EXPECT_DOUBLE_EQ(*fma.total_flops, 2e12);
  EXPECT_DOUBLE_EQ(*fma.operational_intensity, 2e6);
  EXPECT_EQ(fma.position, "compute_bound");
  EXPECT_EQ(fma.binding_ceiling, "fp32");
  EXPECT_NEAR(*fma.percent_of_roof, 100.0 * 5e13 / (132 * 1980e6 * 256), 1e-9);

  const auto& copy = CounterTrace::kernel(r, "copy");
  EXPECT_DOUBLE_EQ(*copy.total_flops, 0);
  EXPECT_DOUBLE_EQ(*copy.operational_intensity, 0);
  EXPECT_EQ(copy.position, "memory_bound");
  EXPECT_EQ(copy.binding_ceiling, "dram");
  EXPECT_NEAR(*copy.percent_of_roof, 80.0, 1e-9);
  EXPECT_NEAR(*copy.achieved_bytes_per_s[kDram], 2.68e12, 1);

  const auto& triad = CounterTrace::kernel(r, "triad");
  EXPECT_NEAR(*triad.operational_intensity, 2e8 / 1.2e9, 1e-12);
  EXPECT_EQ(triad.position, "memory_bound");
  // Achieved 4e11 FLOP/s against OI x bandwidth = (1/6) x 3.35e12.
  EXPECT_NEAR(*triad.percent_of_roof, 100.0 * 4e11 / (3.35e12 / 6), 1e-9);
}

TEST(Roofline, MixedArithmeticUsesTheTimeEachKindNeedsAtItsPeak) {
  CounterTrace t("sm_90", "H100", 132, 1980, 3.35e12);
  auto c = nvidia(1e9, 0, 1e6, 0);
  c["sm__ops_path_tensor_src_fp16.sum"] = 1e12;
  c["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] = 1e12;
  t.dispatch("gemm", 5'000'000, c);
  auto r = analyze_roofline(t.trace);
  const auto& k = CounterTrace::kernel(r, "gemm");
  EXPECT_DOUBLE_EQ(*k.flops[kFp16Matrix], 2e12);
  const double fp32 = 132 * 1980e6 * 256, tensor = 132 * 1980e6 * 4096;
  EXPECT_NEAR(*k.compute_roof, (2e12 + 2e9) / (2e12 / tensor + 2e9 / fp32), 1e3);
  EXPECT_EQ(k.binding_ceiling, "matrix_fp16");
  EXPECT_EQ(k.position, "compute_bound");
}

TEST(Roofline, MissingCounterMakesThatFigureNullAndSaysWhich) {
  CounterTrace t("sm_90", "H100", 132, 1980, 3.35e12);
  t.dispatch("k", 1000, nvidia(10, 0, 100, 100));
  auto partial = nvidia(10, 0, 100, 100);
  partial.erase("dram__bytes_write.sum");
  t.dispatch("k", 1000, partial);
  t.dispatch("never_measured", 1000, {});
  auto r = analyze_roofline(t.trace);
  const auto& k = CounterTrace::kernel(r, "k");
  EXPECT_EQ(k.measured_dispatches, 2u);
  EXPECT_DOUBLE_EQ(*k.flops[kFp32], 40);
  EXPECT_FALSE(k.bytes[kDram].has_value());
  EXPECT_FALSE(k.operational_intensity.has_value());
  EXPECT_FALSE(k.position.has_value());
  bool named = false;
  for (const auto& m : k.missing) named |= m.find("dram__bytes_write.sum") != std::string::npos;
  EXPECT_TRUE(named);
  const auto& never = CounterTrace::kernel(r, "never_measured");
  EXPECT_EQ(never.measured_dispatches, 0u);
  EXPECT_FALSE(never.total_flops.has_value());
  ASSERT_FALSE(never.missing.empty());
}

// ncu's roofline recipes (--metrics by hand) count the tensor pipe's instructions
// (sm__inst_executed_pipe_tensor.sum) instead of its operations: where none ran, the matrix kinds
// are zero; where some ran, their FLOPs are unknown and the kernel is not placed, rather than placed
// by its other arithmetic alone (a FlashAttention kernel was called memory-bound so).
TEST(Roofline, TheTensorPipesInstructionsSayWhetherUncountedMatrixWorkIsZero) {
  CounterTrace t("sm_80", "NVIDIA A100", 108, 1410, 1.555e12);
  auto counters = [](double tensor_instructions) {
    auto c = nvidia(1e8, 0, 1e8, 1e8);
    c["sm__inst_executed_pipe_tensor.sum"] = tensor_instructions;
    return c;
  };
  t.dispatch("elementwise", 200'000, counters(0));
  t.dispatch("attention", 200'000, counters(5e6));
  t.dispatch("attention", 200'000, counters(3e6));
  auto counted = counters(5e6);
  for (const char* ops : {"sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
                          "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_src_fp64.sum",
                          "sm__ops_path_tensor_src_fp8.sum"}) {
    counted[ops] = 0;
  }
  counted["sm__ops_path_tensor_src_fp16.sum"] = 2.56e9;
  t.dispatch("gemm", 200'000, counted);
  t.dispatch("unknown", 200'000, nvidia(1e8, 0, 1e8, 1e8));
  auto moves = counters(640);  // ptxas's HFMA2.MMA register moves, all of the tensor pipe's instructions
  moves["sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum"] = 640;
  t.dispatch("moves", 200'000, moves);
  const auto r = analyze_roofline(t.trace);
  auto says = [](const KernelRoofline& k, const std::string& text) {
    return std::any_of(k.missing.begin(), k.missing.end(), [&](const std::string& m) { return m.find(text) != std::string::npos; });
  };
  const auto& elementwise = CounterTrace::kernel(r, "elementwise");
  EXPECT_DOUBLE_EQ(*elementwise.flops[kFp16Matrix], 0);
  EXPECT_DOUBLE_EQ(*elementwise.total_flops, 2e8);
  EXPECT_EQ(elementwise.position, "memory_bound");
  EXPECT_FALSE(says(elementwise, "matrix_fp16 FLOPs")) << "no tensor instruction: no tensor FLOPs";
  const auto& attention = CounterTrace::kernel(r, "attention");
  EXPECT_FALSE(attention.flops[kFp16Matrix].has_value());
  EXPECT_FALSE(attention.position.has_value());
  EXPECT_TRUE(says(attention, "matrix FLOPs not counted: 8000000 matrix-unit instructions ran")) << ::testing::PrintToString(attention.missing);
  const auto& gemm = CounterTrace::kernel(r, "gemm");
  EXPECT_DOUBLE_EQ(*gemm.flops[kFp16Matrix], 2.56e9) << "counted where the trace has the operations";
  EXPECT_TRUE(gemm.position.has_value());
  const auto& unknown = CounterTrace::kernel(r, "unknown");
  EXPECT_FALSE(unknown.flops[kFp16Matrix].has_value()) << "neither counter: unknown, as before";
  const auto& register_moves = CounterTrace::kernel(r, "moves");
  EXPECT_DOUBLE_EQ(*register_moves.flops[kFp16Matrix], 0);
  EXPECT_TRUE(register_moves.position.has_value());
}

// An int8 GEMM does its work as integer operations of the tensor cores, which ncu counts apart
// (sm__ops_path_tensor_src_int8: 2 n^3 a call for PyTorch's torch._int_mm at n = 4096 on an H100,
// 1.37 ms a call): no FLOPs. Its float work alone made it a memory-bound kernel at a small fraction
// of the DRAM roof; it is not placed, and says why. A float GEMM beside it is placed as before.
TEST(Roofline, IntegerMatrixWorkIsNoFlopsAndTheKernelIsNotPlaced) {
  CounterTrace t("sm_90", "NVIDIA H100 80GB HBM3", 132, 1980, 3.35e12);
  auto gemm = [](const char* ops_counter, double ops) {
    auto c = nvidia(4e6, 0, 3.4e7, 6.7e7);
    for (const char* counter : {"sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
                                "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_src_fp64.sum",
                                "sm__ops_path_tensor_src_fp8.sum", "sm__ops_path_tensor_src_int8.sum",
                                "sm__ops_path_tensor_src_int1.sum"}) {
      c[counter] = 0;
    }
    c[ops_counter] = ops;
    return c;
  };
  t.dispatch("int8_gemm", 1'374'848, gemm("sm__ops_path_tensor_src_int8.sum", 137438953472));
  t.dispatch("int8_gemm", 1'346'304, gemm("sm__ops_path_tensor_src_int8.sum", 137438953472));
  t.dispatch("fp16_gemm", 213'664, gemm("sm__ops_path_tensor_src_fp16.sum", 137438953472));
  auto no_int1 = gemm("sm__ops_path_tensor_src_int8.sum", 1e9);  // a GPU whose ncu lacks the int1 counter
  no_int1.erase("sm__ops_path_tensor_src_int1.sum");
  t.dispatch("int8_no_int1", 100'000, no_int1);
  const auto r = analyze_roofline(t.trace);
  const auto& int8 = CounterTrace::kernel(r, "int8_gemm");
  EXPECT_FALSE(int8.position.has_value()) << *int8.position;
  EXPECT_FALSE(int8.percent_of_roof.has_value());
  EXPECT_FALSE(int8.total_flops.has_value());
  EXPECT_DOUBLE_EQ(*int8.flops[kFp16Matrix], 0) << "its float figures are still given";
  EXPECT_NE(std::find(int8.missing.begin(), int8.missing.end(),
                      "integer matrix work: 2.749e+11 integer operations of the matrix unit ran, which are no FLOPs: the "
                      "kernel is not placed on the FLOP roofline"),
            int8.missing.end())
      << ::testing::PrintToString(int8.missing);
  EXPECT_FALSE(CounterTrace::kernel(r, "int8_no_int1").position.has_value()) << "one of the two counters is enough";
  const auto& fp16 = CounterTrace::kernel(r, "fp16_gemm");
  EXPECT_EQ(fp16.position, "compute_bound");
  EXPECT_DOUBLE_EQ(*fp16.flops[kFp16Matrix], 137438953472);
}

// The same on an H100's own counters (bench/data/tensor_kinds_h100.txt: ncu's raw page of every
// tensor operations counter, PyTorch GEMMs at n = 4096, two calls each): each float GEMM's matrix
// FLOPs are 2 n^3 a call in its kind alone, and the int8 GEMM's integer operations are none.
TEST(Roofline, EveryTensorKindOfAnH100CountsItsGemmsTwoNCubedAndInt8None) {
  const auto r = analyze_roofline(trace::read_traces({test::source_dir() / "tests/fixtures/ncu_tensor_kinds_torch_h100.csv"}));
  const double per_call = 2.0 * 4096 * 4096 * 4096;
  std::map<std::string, int> kinds;  // GEMMs by their one matrix kind
  size_t integer = 0;
  for (const auto& k : r.kernels) {
    std::string kind;
    for (size_t f = 0; f < hal::kComputeKinds; ++f) {
      if (!k.flops[f] || *k.flops[f] == 0) continue;
      EXPECT_TRUE(kind.empty()) << k.name;
      kind = hal::kComputeKindNames[f];
      EXPECT_DOUBLE_EQ(*k.flops[f], per_call * static_cast<double>(k.measured_dispatches)) << k.name;
    }
    if (!kind.empty()) ++kinds[kind];
    if (k.unplaced == "integer matrix work, which is no FLOPs") {
      ++integer;
      EXPECT_NE(k.name.find("i161616gemm_s8"), std::string::npos) << k.name;
      EXPECT_TRUE(kind.empty());
    }
  }
  EXPECT_EQ(kinds, (std::map<std::string, int>{{"matrix_fp16", 2}, {"matrix_tf32", 1}, {"matrix_fp64", 1}, {"matrix_fp8", 1}}))
      << "fp16 and bf16 share matrix_fp16";
  EXPECT_EQ(integer, 1u);
}

// ncu locks the clock to base unless told otherwise, and a busy GPU runs below its maximum: a
// kernel's compute roof is at the clock its dispatches ran at where the trace records it (ncu's
// roofline does the same), the time-weighted mean over them. A ceilings file's FLOP rates were
// measured at a clock of their own and stay as given.
TEST(Roofline, AKernelsComputeRoofIsAtTheClockItRanAt) {
  CounterTrace t("sm_90", "H100", 132, 1980, 3.35e12);
  auto at = [](double ffma, double hz, const char* clock = "sm__cycles_elapsed.avg.per_second") {
    auto c = nvidia(ffma, 0, 5e5, 5e5);
    c[clock] = hz;
    return c;
  };
  // 2e12 FLOPs at 990 MHz over 40 ms, and again at 1980 MHz over 10 ms: 1188 MHz over the 50 ms.
  t.dispatch("fma", 40'000'000, at(1e12, 990e6));
  t.dispatch("fma", 10'000'000, at(1e12, 1980e6));
  t.dispatch("gpc", 40'000'000, at(1e12, 1320e6, "gpc__cycles_elapsed.avg.per_second"));
  t.dispatch("unclocked", 40'000'000, nvidia(1e12, 0, 5e5, 5e5));
  t.dispatch("partly", 40'000'000, at(1e12, 990e6));
  t.dispatch("partly", 40'000'000, nvidia(1e12, 0, 5e5, 5e5));
  const double fp32_per_mhz = 132 * 256 * 1e6;
  const auto r = analyze_roofline(t.trace);
  EXPECT_EQ(r.ceilings.clock_mhz, 1980);
  const auto& fma = CounterTrace::kernel(r, "fma");
  const double mhz = (990 * 40 + 1980 * 10) / 50.0;  // 1188
  ASSERT_TRUE(fma.clock_mhz.has_value());
  EXPECT_NEAR(*fma.clock_mhz, mhz, 1e-6);
  EXPECT_NEAR(*fma.compute_roof, fp32_per_mhz * mhz, 1);
  EXPECT_NEAR(*fma.percent_of_roof, 100.0 * (4e12 / 0.05) / (fp32_per_mhz * mhz), 1e-9);
  const auto& gpc = CounterTrace::kernel(r, "gpc");
  ASSERT_TRUE(gpc.clock_mhz.has_value()) << "the GPC's clock is the SM's";
  EXPECT_NEAR(*gpc.clock_mhz, 1320, 1e-6);
  EXPECT_NEAR(*gpc.percent_of_roof, 100.0 * 5e13 / (fp32_per_mhz * 1320), 1e-9);
  for (const char* name : {"unclocked", "partly"}) {
    const auto& k = CounterTrace::kernel(r, name);
    EXPECT_FALSE(k.clock_mhz.has_value()) << name;
    EXPECT_NEAR(*k.compute_roof, fp32_per_mhz * 1980, 1) << name << ": at the device's maximum";
  }

  const auto dir = test::fresh_dir("clocked_ceilings");
  std::ofstream(dir / "measured.json") << R"({"flops_per_s": {"fp32": 5.0e13}})";
  const auto measured = analyze_roofline(t.trace, {(dir / "measured.json").string()});
  EXPECT_FALSE(measured.ceilings.clock_mhz.has_value());
  const auto& as_given = CounterTrace::kernel(measured, "gpc");
  ASSERT_TRUE(as_given.clock_mhz.has_value());
  EXPECT_NEAR(*as_given.clock_mhz, 1320, 1e-6);
  EXPECT_NEAR(*as_given.compute_roof, 5e13, 1);
  std::ofstream(dir / "bandwidth.json") << R"({"bytes_per_s": {"dram": 3.0e12}})";
  EXPECT_EQ(analyze_roofline(t.trace, {(dir / "bandwidth.json").string()}).ceilings.clock_mhz, 1980)
      << "a file of bandwidths alone leaves the table's FLOP ceilings and their clock";
}

// ncu's full set gives the thread instructions only as rates per cycle elapsed of the SM
// sub-partitions, the L2's traffic only in 32-byte sectors: a trace without the recipe's counters
// but with all of these is counted by them, the rate times the cycles elapsed.
TEST(Roofline, AFigureIsCountedOtherwiseWhereTheTraceHasOnlyItsSecondForm) {
  CounterTrace t("sm_90", "H100", 132, 1980, 3.35e12);
  auto full_set = [](double ffma_per_cycle, std::optional<double> cycles) {
    std::map<std::string, double> c = {{"dram__bytes_read.sum", 1e6}, {"dram__bytes_write.sum", 1e6}, {"lts__t_sectors.sum", 1e5}};
    for (const char* op : {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"}) {
      c[fmt::format("smsp__sass_thread_inst_executed_op_{}_pred_on.sum.per_cycle_elapsed", op)] = 0;
    }
    c["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"] = ffma_per_cycle;
    c["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed"] = 1;
    if (cycles) c["smsp__cycles_elapsed.avg"] = *cycles;
    return c;
  };
  t.dispatch("sgemm", 1'000'000, full_set(5000, 1e6));
  t.dispatch("sgemm", 1'000'000, full_set(4000, 2e6));
  t.dispatch("no_cycles", 1'000'000, full_set(5000, std::nullopt));
  t.dispatch("cycles_once", 1'000'000, full_set(5000, 1e6));
  t.dispatch("cycles_once", 1'000'000, full_set(5000, std::nullopt));
  auto both = full_set(5000, 1e6);
  both["sm__sass_thread_inst_executed_op_fadd_pred_on.sum"] = 0;
  both["sm__sass_thread_inst_executed_op_fmul_pred_on.sum"] = 0;
  both["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = 1e9;
  t.dispatch("both", 1'000'000, both);
  const auto r = analyze_roofline(t.trace);
  const auto& sgemm = CounterTrace::kernel(r, "sgemm");
  ASSERT_TRUE(sgemm.flops[kFp32].has_value()) << ::testing::PrintToString(sgemm.missing);
  EXPECT_DOUBLE_EQ(*sgemm.flops[kFp32], 2 * (5000 * 1e6 + 4000 * 2e6));
  EXPECT_DOUBLE_EQ(*sgemm.flops[static_cast<size_t>(hal::ComputeKind::fp16)], 4 * (1e6 + 2e6)) << "half2: 4 FLOPs an HFMA";
  EXPECT_DOUBLE_EQ(*sgemm.flops[static_cast<size_t>(hal::ComputeKind::fp64)], 0);
  EXPECT_DOUBLE_EQ(*sgemm.bytes[static_cast<size_t>(hal::MemoryLevel::l2)], 32 * 2e5);
  EXPECT_EQ(sgemm.position, "compute_bound");
  for (const char* name : {"no_cycles", "cycles_once"}) {
    const auto& k = CounterTrace::kernel(r, name);
    EXPECT_FALSE(k.flops[kFp32].has_value()) << name;
    EXPECT_FALSE(k.position.has_value()) << name << ": its FP32 arithmetic is not known";
  }
  const auto& missing = CounterTrace::kernel(r, "no_cycles").missing;
  EXPECT_NE(std::find(missing.begin(), missing.end(), "fp32 FLOPs: counter sm__sass_thread_inst_executed_op_fadd_pred_on.sum missing"),
            missing.end())
      << "the recipe's own counter is named: " << ::testing::PrintToString(missing);
  EXPECT_DOUBLE_EQ(*CounterTrace::kernel(r, "both").flops[kFp32], 2e9) << "the counts, where the dispatch has them";
}

// ncu counts ptxas's HFMA2.MMA register moves as HFMA instructions: on an H100 (profile --deep
// --roofline's own counter pass), every HFMA of our softmax testbed and of PyTorch's random fills
// is one, 32 threads to each of the tensor pipe's HFMA2.MMA warp instructions, or fewer in a partial
// warp (31 fewer in one launch). Those FLOPs are no FP16 arithmetic; nor are they where a full set's
// rates give the FP16 figure and its instructions by opcode give the moves, to the rates' rounding.
TEST(Roofline, Hfma2MmaRegisterMovesAreNoFp16Flops) {
  constexpr size_t kFp16 = static_cast<size_t>(hal::ComputeKind::fp16);
  const std::string hfma = "sm__sass_thread_inst_executed_op_hfma_pred_on.sum";
  const std::string moves = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";
  for (const char* program : {"softmax", "torch"}) {
    const auto t = trace::read_traces({test::source_dir() / fmt::format("tests/fixtures/ncu_deep_roofline_{}_h100.csv", program)});
    std::map<std::string, double> counted;  // HFMA thread instructions of each kernel
    size_t partial_warps = 0;
    for (uint32_t d = 0; d < t.dispatches.size(); ++d) {
      std::map<std::string, double> c;
      for (const auto& v : t.counter_values) {
        if (v.dispatch == d) c[t.counter_names[v.counter]] = v.value;
      }
      ASSERT_TRUE(c.count(hfma) && c.count(moves)) << program;
      EXPECT_LE(c[hfma], 32 * c[moves]) << program;
      partial_warps += c[hfma] < 32 * c[moves];
      counted[t.symbols[static_cast<size_t>(t.dispatches[d].symbol)].name()] += c[hfma];
    }
    EXPECT_EQ(partial_warps, std::string(program) == "torch" ? 1u : 0u);
    const auto r = analyze_roofline(t);
    size_t with_moves = 0;
    for (const auto& k : r.kernels) {
      ASSERT_TRUE(k.flops[kFp16].has_value()) << k.name << ::testing::PrintToString(k.missing);
      EXPECT_DOUBLE_EQ(*k.flops[kFp16], 0) << k.name << ": " << counted[k.name] << " HFMAs, all of them moves";
      with_moves += counted[k.name] > 0;
    }
    EXPECT_EQ(with_moves, std::string(program) == "torch" ? 2u : 1u) << program;
  }
  const auto softmax = analyze_roofline(trace::read_traces({test::source_dir() / "tests/fixtures/ncu_deep_roofline_softmax_h100.csv"}));
  EXPECT_DOUBLE_EQ(*softmax.kernels[0].flops[kFp32], 553648128) << "its FP32 FLOPs as before";

  const auto rates = trace::read_traces({test::source_dir() / "tests/fixtures/ncu_fp16_rates_opcodes_torch_h100.csv"});
  std::map<std::string, double> rate_flops;  // the FP16 figure of the rates, moves and all
  for (const auto& v : rates.counter_values) {
    if (rates.counter_names[v.counter] != "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed") continue;
    for (const auto& w : rates.counter_values) {
      if (w.dispatch == v.dispatch && rates.counter_names[w.counter] == "smsp__cycles_elapsed.avg") {
        rate_flops[rates.symbols[static_cast<size_t>(rates.dispatches[v.dispatch].symbol)].name()] += 4 * v.value * w.value;
      }
    }
  }
  size_t fills = 0;
  for (const auto& k : analyze_roofline(rates).kernels) {
    ASSERT_TRUE(k.flops[kFp16].has_value()) << k.name << ::testing::PrintToString(k.missing);
    EXPECT_LE(*k.flops[kFp16], 1e-4 * rate_flops[k.name]) << k.name << ": " << rate_flops[k.name] << " counted by the rates";
    fills += rate_flops[k.name] > 0;
  }
  EXPECT_EQ(fills, 2u) << "PyTorch's two random fills";
}

// Where this GPU's ncu lacks the moves' counter (the pass drops it), nothing is taken off: the FP16
// figure keeps the moves, and the warning says so rather than that a figure stays null.
TEST(Roofline, WithoutTheMovesCounterTheFp16FigureKeepsThemAndTheWarningSaysSo) {
  constexpr size_t kFp16 = static_cast<size_t>(hal::ComputeKind::fp16);
  const std::string moves = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";
  auto t = trace::read_traces({test::source_dir() / "tests/fixtures/ncu_deep_roofline_softmax_h100.csv"});
  double hfma = 0;
  for (const auto& v : t.counter_values) {
    if (t.counter_names[v.counter] == "sm__sass_thread_inst_executed_op_hfma_pred_on.sum") hfma += v.value;
  }
  std::erase_if(t.counter_values, [&](const auto& v) { return t.counter_names[v.counter] == moves; });
  const auto r = analyze_roofline(t);
  ASSERT_TRUE(r.kernels[0].flops[kFp16].has_value()) << ::testing::PrintToString(r.kernels[0].missing);
  EXPECT_GT(hfma, 0);
  EXPECT_DOUBLE_EQ(*r.kernels[0].flops[kFp16], 4 * hfma);

  const auto warnings = missing_nvidia_counter_warnings({"lts__t_bytes.sum", moves, "sm__ops_path_tensor_src_fp8.sum"});
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "counter pass: this GPU's ncu has no metric lts__t_bytes.sum, sm__ops_path_tensor_src_fp8.sum; "
                         "the figures that need it stay null");
  EXPECT_EQ(warnings[1], "counter pass: this GPU's ncu has no metric " + moves +
                             "; FP16 FLOPs and the instruction mix's fp16 share then count ptxas's HFMA2.MMA register "
                             "moves as FP16 arithmetic");
  EXPECT_TRUE(missing_nvidia_counter_warnings({}).empty());
}

TEST(Roofline, Gfx942CountersByRocprofComputesFormulas) {
  CounterTrace t("gfx942", "AMD Instinct MI300X", 304, 2100);
  std::map<std::string, double> c;
  for (const char* type : {"F16", "F32", "F64"}) {
    for (const char* op : {"ADD", "MUL", "FMA", "TRANS"}) c[fmt::format("SQ_INSTS_VALU_{}_{}", op, type)] = 0;
  }
  c["SQ_INSTS_VALU_FMA_F32"] = 1000;  // wave instructions: 1000 x 64 lanes x 2
  for (const char* type : {"F16", "BF16", "F32", "F64", "F8"}) c[fmt::format("SQ_INSTS_VALU_MFMA_MOPS_{}", type)] = 0;
  c["SQ_INSTS_VALU_MFMA_MOPS_BF16"] = 10;  // x 512
  c["TCC_BUBBLE_sum"] = 2;
  c["TCC_EA0_RDREQ_32B_sum"] = 3;
  c["TCC_EA0_RDREQ_sum"] = 10;
  c["TCC_EA0_WRREQ_sum"] = 6;
  c["TCC_EA0_WRREQ_64B_sum"] = 4;
  t.dispatch("mfma", 1000, c);
  auto r = analyze_roofline(t.trace);
  const auto& k = CounterTrace::kernel(r, "mfma");
  EXPECT_DOUBLE_EQ(*k.flops[kFp32], 128000);
  EXPECT_DOUBLE_EQ(*k.flops[kFp16Matrix], 5120);
  // 128 x 2 + 32 x 3 + 64 x (10 - 2 - 3) + 32 x (6 - 4) + 64 x 4
  EXPECT_DOUBLE_EQ(*k.bytes[kDram], 256 + 96 + 320 + 64 + 256);
  EXPECT_EQ(*r.ceilings.bytes_per_s[kDram], 5.3e12);  // MI300X, from the table
  EXPECT_NEAR(*r.ceilings.flops_per_s[kFp16Matrix], 304 * 2100e6 * 2048, 1);
}

// The DRAM peak of a GPU the trace names but whose memory it does not describe (a PyTorch profiler
// or Nsight Systems trace): the datasheet's, under the name CUDA gives the product; none for a name
// the table does not hold.
TEST(Roofline, ANamedNvidiaProductHasItsDatasheetsDramPeak) {
  const std::vector<std::pair<std::string, double>> datasheets = {{"NVIDIA H100 80GB HBM3", 3.35e12}, {"NVIDIA H200", 4.8e12}};
  for (const auto& [product, peak] : datasheets) {
    CounterTrace t("sm_90", product, 132, 1980);
    t.dispatch("k", 1000, {{"dram__bytes_read.sum", 1}});
    EXPECT_EQ(analyze_roofline(t.trace).ceilings.bytes_per_s[kDram], peak) << product;
  }
  CounterTrace recorded("sm_90", "NVIDIA H200", 132, 1980, 4.81e12);
  EXPECT_EQ(analyze_roofline(recorded.trace).ceilings.bytes_per_s[kDram], 4.81e12) << "the trace's own figure first";
  CounterTrace unnamed("sm_90", "", 132, 1980);
  const auto r = analyze_roofline(unnamed.trace);
  EXPECT_FALSE(r.ceilings.bytes_per_s[kDram]);
  EXPECT_NE(r.ceilings.notes[0].find("no DRAM bandwidth: the trace names no product"), std::string::npos) << r.ceilings.notes[0];
}

TEST(Roofline, Gfx1030HasNoCounterFormulas) {
  CounterTrace t("gfx1030", "AMD Radeon RX 6900 XT", 80, 2250);
  t.dispatch("k", 1000, {{"SQ_INSTS_VALU", 100}});
  auto r = analyze_roofline(t.trace);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("no counter formulas for gfx1030"), std::string::npos);
  EXPECT_FALSE(r.kernels[0].total_flops.has_value());
  EXPECT_FALSE(r.ceilings.flops_per_s[kFp32].has_value());
}

TEST(Roofline, CeilingsFileOverridesAndBadFilesAreBadInput) {
  CounterTrace t("sm_90", "H100", 132, 1980, 3.35e12);
  const auto dir = test::fresh_dir("ceilings");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  auto good = write("good.json", R"({"flops_per_s": {"fp32": 5.0e13}, "bytes_per_s": {"dram": 3.0e12, "l2": 1.0e13}})");
  auto r = analyze_roofline(t.trace, {good});
  EXPECT_EQ(*r.ceilings.flops_per_s[kFp32], 5e13);
  EXPECT_EQ(*r.ceilings.bytes_per_s[kDram], 3e12);
  EXPECT_EQ(r.ceilings.source, good);
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"not_json.json", "{"}, {"unknown.json", R"({"flops": {}})"}, {"kind.json", R"({"flops_per_s": {"fp128": 1}})"},
           {"negative.json", R"({"bytes_per_s": {"dram": -1}})"}, {"text.json", R"({"bytes_per_s": {"dram": "fast"}})"}}) {
    try {
      analyze_roofline(t.trace, {write(name, text)});
      ADD_FAILURE() << name << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_input) << name;
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
  try {
    analyze_roofline(t.trace, {(dir / "absent.json").string()});
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
  }
}

TEST(Roofline, AmdCounterPassesCoverTheRecipeOnce) {
  for (const char* arch : {"gfx90a", "gfx942", "gfx950"}) {
    SCOPED_TRACE(arch);
    std::vector<std::string> all;
    for (const auto& pass : counter_passes(arch)) {
      EXPECT_FALSE(pass.empty());
      all.insert(all.end(), pass.begin(), pass.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, recipe_counters(*counter_recipe(arch)));
  }
  EXPECT_EQ(counter_passes("gfx90a").size(), 3u);  // no FP8 pass before MI300
  EXPECT_TRUE(counter_passes("sm_90").empty());    // ncu replays as it needs
  EXPECT_TRUE(counter_passes("gfx1030").empty());
}

}  // namespace
}  // namespace rpl::analysis
