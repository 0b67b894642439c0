// Nsight Compute's CSV details page: a real file of ncu's newer layout (an sm_100 GEMM, with the
// program's output before it), the older layout without launch columns as ncu wrote it, bad input.
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/trace/ncu_reader.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

bool said(const trace::Trace& t, const std::string& text) {
  for (const auto& w : t.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(NcuCsv, RealDetailsPageOfAnSm100Gemm) {
  const auto file = source_dir() / "tests/fixtures/real/ncu-superbench-b200/cublaslt_ncu.log";
  ASSERT_EQ(trace::trace_format(file), trace::TraceFormat::ncu_csv);
  const auto t = trace::read_traces({file});
  ASSERT_EQ(t.dispatches.size(), 1u);
  const auto& d = t.dispatches[0];
  EXPECT_EQ(d.duration_ns(), 406240) << "its Speed Of Light section's Duration, in ns";
  EXPECT_EQ(d.stream_id, 7);
  const auto& g = t.geometry(d);
  EXPECT_EQ(g.workgroup, (std::array<uint32_t, 3>{384, 1, 1}));
  EXPECT_EQ(g.grid, (std::array<uint64_t, 3>{9 * 384, 32, 1})) << "the Grid Size column counts blocks";
  EXPECT_EQ(g.group_segment_size, 205696u) << "static 0 + dynamic 205,696 bytes";
  const auto& k = t.symbols[static_cast<size_t>(d.symbol)];
  EXPECT_EQ(k.name(), "cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256x128_1x1x1_0_tnn_align4_1sm_bias_f16_relu_aux_scalemax");
  EXPECT_TRUE(k.registers_known);
  EXPECT_EQ(k.arch_vgpr_count, 168);
  EXPECT_TRUE(k.lds_split_known);
  ASSERT_EQ(t.agents.size(), 1u);
  EXPECT_EQ(t.agents[0].name, "sm_100") << "from the CC column, 10.0";
  EXPECT_EQ(t.agents[0].vendor_name, "NVIDIA");
  EXPECT_EQ(t.agents[0].compute_units, 152) << "Launch Statistics' # SMs";
  // Its GPU Speed Of Light percentages and clocks and its theoretical occupancy, kept under the raw
  // names the raw page gives them; no other label of a section is a counter.
  std::map<std::string, double> counters;
  for (const auto& v : t.counter_values) counters[t.counter_names[v.counter]] = v.value;
  ASSERT_EQ(counters.size(), 7u) << ::testing::PrintToString(t.counter_names);
  EXPECT_DOUBLE_EQ(counters["sm__maximum_warps_per_active_cycle_pct"], 18.75) << "Theoretical Occupancy, as ours";
  EXPECT_DOUBLE_EQ(counters["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"], 21.68) << "Memory Throughput";
  EXPECT_DOUBLE_EQ(counters["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"], 0.74) << "DRAM Throughput";
  EXPECT_DOUBLE_EQ(counters["sm__throughput.avg.pct_of_peak_sustained_elapsed"], 23.59) << "Compute (SM) Throughput";
  EXPECT_DOUBLE_EQ(counters["gpc__cycles_elapsed.avg.per_second"], 1239496049.13) << "SM Frequency";
  EXPECT_TRUE(counters.count("dram__cycles_elapsed.avg.per_second")) << "DRAM Frequency";
  EXPECT_TRUE(counters.count("gpc__cycles_elapsed.max")) << "Elapsed Cycles";
  // Its rule rows: ncu's findings, with the speedups it estimates where it does.
  ASSERT_EQ(t.findings.size(), 8u);
  EXPECT_EQ(t.findings[0].section, "SpeedOfLight");
  EXPECT_EQ(t.findings[0].rule, "SOLBottleneck");
  EXPECT_EQ(t.findings[0].type, "OPT");
  EXPECT_FALSE(t.findings[0].speedup_percent);
  EXPECT_EQ(t.findings[0].speedup_kind, "");
  EXPECT_EQ(t.findings[3].rule, "TheoreticalOccupancy");
  EXPECT_EQ(t.findings[3].speedup_kind, "local");
  EXPECT_DOUBLE_EQ(*t.findings[3].speedup_percent, 81.25);
  EXPECT_EQ(t.findings[3].text.rfind("The 3.00 theoretical warps per scheduler", 0), 0u) << t.findings[3].text;
  EXPECT_EQ(t.findings[7].rule, "WorkloadImbalance");
  EXPECT_DOUBLE_EQ(*t.findings[7].speedup_percent, 14.55);
  for (const auto& f : t.findings) EXPECT_EQ(f.dispatch, 0u);
  EXPECT_TRUE(said(t, "Nsight Compute profiles each kernel launch alone"));
  EXPECT_FALSE(said(t, "no CC column"));
}

// The older layout (a Kernel Time column of wall-clock dates; no block, grid, device or CC), with
// --metrics as ncu names them, thousands separators and a unit with an SI prefix.
TEST(NcuCsv, OlderLayoutWithRawMetricsAndNoLaunchColumns) {
  const auto dir = fresh_dir("ncu_older");
  const std::string header =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Kernel Time\",\"Context\",\"Stream\",\"Section Name\","
      "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [](int id, const std::string& kernel, const std::string& metric, const std::string& unit, const std::string& value) {
    return "\"" + std::to_string(id) + "\",\"33512\",\"python3.6\",\"127.0.0.1\",\"" + kernel +
           "\",\"2022-Nov-17 14:13:26\",\"1\",\"7\",\"Command line profiler metrics\",\"" + metric + "\",\"" + unit + "\",\"" + value +
           "\"\n";
  };
  const std::string k = "void scale<double, 4>(double*, at::PhiloxCudaState)";
  write_text(dir / "ncu.csv", "==PROF== Connected to process 33512 (/usr/bin/python3.6)\n" + header +
                             row(0, k, "dram__bytes.sum", "byte", "4,194,688") + row(0, k, "gpu__time_duration.sum", "nsecond", "11,744") +
                             row(1, k, "dram__bytes.sum", "Mbyte", "1.50") + row(1, k, "gpu__time_duration.sum", "usecond", "12.50") +
                             row(2, "void fill(float*)", "dram__bytes.sum", "byte", "128") + "==PROF== Disconnected from process 33512\n");
  const auto t = trace::read_traces({dir / "ncu.csv"});
  ASSERT_EQ(t.dispatches.size(), 2u) << "launch 2 has no duration";
  EXPECT_EQ(t.dispatches[0].start_ns, 0);
  EXPECT_EQ(t.dispatches[0].end_ns, 11744);
  EXPECT_EQ(t.dispatches[1].start_ns, 11744) << "laid end to end";
  EXPECT_EQ(t.dispatches[1].duration_ns(), 12500);
  EXPECT_EQ(t.dispatches[0].symbol, t.dispatches[1].symbol);
  EXPECT_FALSE(t.symbols[0].registers_known);
  ASSERT_EQ(t.counter_names, (std::vector<std::string>{"dram__bytes.sum", "gpu__time_duration.sum"}));
  ASSERT_EQ(t.counter_values.size(), 4u);
  EXPECT_EQ(t.counter_values[0].value, 4194688);
  EXPECT_EQ(t.counter_values[2].value, 1.5e6) << "Mbyte";
  EXPECT_TRUE(said(t, "1 of 3 kernel launches have no duration"));
  EXPECT_TRUE(said(t, "this layout of ncu's CSV has no CC column: the GPU is not known"));
  EXPECT_TRUE(said(t, "no launch statistics (grid and block sizes, registers, shared memory)"));
}

// Roofline recipes list metrics by hand and often leave out gpu__time_duration.sum, but keep a
// unit's elapsed cycles and their rate: the duration is their quotient (ncu's .per_second is a
// count over the duration). A real file of that kind: 10 launches of a PyTorch BERT's attention
// on an A100, in ncu's older layout.
TEST(NcuCsv, ElapsedCyclesOverTheirRateAreTheDurationWhereNcuGaveNone) {
  const auto file = source_dir() / "tests/fixtures/real/ncu-leleucas-a100/bert_flashattn_nsight.csv";
  const auto t = trace::read_traces({file});
  ASSERT_EQ(t.dispatches.size(), 10u);
  // sm__cycles_elapsed.avg over sm__cycles_elapsed.avg.per_second (cycle/second): 8,382.70 cycles
  // at 999,845,384.51 a second, 7,355.74 at 945,954,313.37. Each lands on the 32 ns a tick of
  // ncu's own timer, as gpu__time_duration.sum would.
  EXPECT_EQ(t.dispatches[0].duration_ns(), 8384);
  EXPECT_EQ(t.dispatches[7].duration_ns(), 7776);
  for (const auto& d : t.dispatches) EXPECT_EQ(d.duration_ns() % 32, 0) << d.id;
  EXPECT_EQ(t.dispatches[1].start_ns, 8384) << "laid end to end";
  EXPECT_NE(t.symbols[static_cast<size_t>(t.dispatches[7].symbol)].name().find("fmha_fwd_loop_kernel"), std::string::npos);
  EXPECT_FALSE(said(t, "have no duration"));

  // Rates in ncu's human units: cycles a microsecond or a nanosecond, or GHz, are cycles a second.
  const auto dir = fresh_dir("ncu_cycles");
  const std::string header = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Section Name\","
                             "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [](int id, const std::string& metric, const std::string& unit, const std::string& value) {
    return "\"" + std::to_string(id) + "\",\"1\",\"a.out\",\"h\",\"k()\",\"1\",\"7\",\"Command line profiler metrics\",\"" + metric +
           "\",\"" + unit + "\",\"" + value + "\"\n";
  };
  write_text(dir / "ncu.csv", header + row(0, "gpc__cycles_elapsed.avg", "cycle", "4,500") +
                                  row(0, "gpc__cycles_elapsed.avg.per_second", "cycle/usecond", "1,500") +
                                  row(1, "dram__cycles_elapsed.avg", "cycle", "8,000") +
                                  row(1, "dram__cycles_elapsed.avg.per_second", "cycle/nsecond", "2.00") +
                                  row(2, "sm__cycles_elapsed.avg", "cycle", "3,000") + row(2, "sm__cycles_elapsed.avg.per_second", "Ghz", "1.50") +
                                  row(3, "sm__cycles_elapsed.avg", "cycle", "3,000"));
  const auto h = trace::read_traces({dir / "ncu.csv"});
  ASSERT_EQ(h.dispatches.size(), 3u) << "launch 3 has cycles but no rate";
  EXPECT_EQ(h.dispatches[0].duration_ns(), 3000);
  EXPECT_EQ(h.dispatches[1].duration_ns(), 4000);
  EXPECT_EQ(h.dispatches[2].duration_ns(), 2000);
  EXPECT_TRUE(said(h, "1 of 4 kernel launches have no duration"));
  std::map<std::string, double> rates;
  for (const auto& v : h.counter_values) {
    const auto& name = h.counter_names[v.counter];
    if (name.find(".per_second") != std::string::npos) rates[name] = v.value;
  }
  EXPECT_DOUBLE_EQ(rates["gpc__cycles_elapsed.avg.per_second"], 1.5e9);
  EXPECT_DOUBLE_EQ(rates["dram__cycles_elapsed.avg.per_second"], 2e9);
  EXPECT_DOUBLE_EQ(rates["sm__cycles_elapsed.avg.per_second"], 1.5e9);
}

// ncu --import R --csv --page raw --print-metric-instances values writes an instanced metric's
// instances after its aggregate ("44 (44)", "32,360,448 (5,880,320; ...)"), the launch statistics
// among them: the aggregate is the value. The head of such an export (its first two launches) of a
// full-set report of the PyTorch program on an H100 reads as the plain raw page of the same report.
TEST(NcuCsv, AnInstancedMetricsValueIsItsAggregate) {
  const auto instanced = trace::read_traces({source_dir() / "tests/fixtures/ncu_import_raw_instances_torch_roofline_head.csv"});
  const auto plain = trace::read_traces({source_dir() / "tests/fixtures/ncu_import_raw_full_torch_roofline.csv"});
  ASSERT_EQ(instanced.dispatches.size(), 2u);
  const auto& k = instanced.symbols[static_cast<size_t>(instanced.dispatches[0].symbol)];
  EXPECT_TRUE(k.registers_known);
  EXPECT_EQ(k.arch_vgpr_count, 44) << "launch__registers_per_thread, 44 (44)";
  EXPECT_EQ(k.barriers, 1) << "launch__barrier_count, 1 (1)";
  auto values = [](const trace::Trace& t, uint32_t dispatch) {
    std::map<std::string, double> out;
    for (const auto& v : t.counter_values) {
      if (v.dispatch == dispatch) out[t.counter_names[v.counter]] = v.value;
    }
    return out;
  };
  for (uint32_t d = 0; d < 2; ++d) {
    EXPECT_EQ(instanced.dispatches[d].duration_ns(), plain.dispatches[d].duration_ns());
    const auto a = values(instanced, d), b = values(plain, d);
    EXPECT_EQ(a.size(), b.size()) << "no metric is lost to its instances";
    EXPECT_EQ(a, b) << "launch " << d;
  }
  EXPECT_EQ(values(instanced, 0).at("sass__inst_executed_per_opcode"), values(plain, 0).at("sass__inst_executed_per_opcode"));
}

// With --print-metric-instances details, ncu labels each instance: its per-opcode metrics by SASS
// opcode or by its own instruction category ("455,888,896 (FFMA: 268,435,456; ...)"). Those are
// kept as counters named METRIC[LABEL]; other labelled metrics (by instruction address) and
// unlabelled instances keep their aggregate alone. The file: our SGEMM (2048³) under ncu's full
// set on an H100, its stall and per-opcode columns.
TEST(NcuCsv, PerOpcodeInstancesAreCountersNamedByTheirLabel) {
  const auto t = trace::read_traces({source_dir() / "tests/fixtures/ncu_full_instances_sgemm_h100.csv"});
  ASSERT_EQ(t.dispatches.size(), 3u);
  std::map<std::string, double> v;
  for (const auto& c : t.counter_values) {
    if (c.dispatch == 0) v[t.counter_names[c.counter]] = c.value;
  }
  const std::string ops = "sass__thread_inst_executed_true_per_opcode_with_modifier_all";
  EXPECT_EQ(v.at(ops + "[FFMA]"), 2048.0 * 2048 * 2048) << "one thread FFMA a multiply-add";
  EXPECT_EQ(v.at(ops + "[HFMA2.MMA]"), 1572864.0 * 32) << "the modifiers are part of the label";
  EXPECT_EQ(v.at("sass__thread_inst_executed_per_opcode_category[Floating Point]"), 8640266240.0);
  size_t per_opcode = 0;
  for (const auto& [name, total] : v) {
    if (name.find("_per_opcode") == std::string::npos || name.back() == ']') continue;
    ++per_opcode;
    double sum = 0;
    for (auto it = v.lower_bound(name + '['); it != v.end() && it->first.starts_with(name + '['); ++it) sum += it->second;
    EXPECT_EQ(sum, total) << name << ": its instances sum to its aggregate";
  }
  EXPECT_EQ(per_opcode, 8u);

  const auto dir = fresh_dir("ncu_instances");
  const std::string head = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"gpu__time_duration.sum\","
                           "\"smsp__sass_inst_executed_memdesc_explicit_evict_type\",\"sass__inst_executed_per_opcode\"\n"
                           "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"ns\",\"\",\"\"\n";
  const std::string launch = "\"0\",\"1\",\"a.out\",\"h\",\"k()\",\"1\",\"7\",\"5,000\",\"3 (0x7fed: 1; 0x7fee: 2)\",";
  write_text(dir / "labels.csv", head + launch + "\"12 (FFMA: 10; IMAD: 2)\"\n");
  write_text(dir / "values.csv", head + launch + "\"12 (10; 2)\"\n");
  write_text(dir / "torn.csv", head + launch + "\"12 (FFMA: 10; IMAD)\"\n");
  auto names = [](const fs::path& file) {
    const auto r = trace::read_traces({file});
    std::map<std::string, double> out;
    for (const auto& c : r.counter_values) out[r.counter_names[c.counter]] = c.value;
    return out;
  };
  EXPECT_EQ(names(dir / "labels.csv"), (std::map<std::string, double>{{"gpu__time_duration.sum", 5000},
                                                                       {"sass__inst_executed_per_opcode", 12},
                                                                       {"sass__inst_executed_per_opcode[FFMA]", 10},
                                                                       {"sass__inst_executed_per_opcode[IMAD]", 2},
                                                                       {"smsp__sass_inst_executed_memdesc_explicit_evict_type", 3}}));
  const std::map<std::string, double> aggregates = {{"gpu__time_duration.sum", 5000},
                                                    {"sass__inst_executed_per_opcode", 12},
                                                    {"smsp__sass_inst_executed_memdesc_explicit_evict_type", 3}};
  EXPECT_EQ(names(dir / "values.csv"), aggregates) << "unlabelled instances";
  EXPECT_EQ(names(dir / "torn.csv"), aggregates) << "an instance without its label or count: none is kept";
}

// A label means a Speed Of Light percentage only in that section and in percent: the Memory
// Workload Analysis section's "Memory Throughput" is bytes a second, and stays a label.
TEST(NcuCsv, OnlyTheSpeedOfLightSectionsPercentagesAreKeptAsRawMetrics) {
  const auto dir = fresh_dir("ncu_sol");
  std::string csv = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
                    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [&](const std::string& section, const std::string& metric, const std::string& unit, const std::string& value) {
    csv += "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(128, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\",\"" + section + "\",\"" + metric +
           "\",\"" + unit + "\",\"" + value + "\"\n";
  };
  row("Memory Workload Analysis", "Memory Throughput", "Tbyte/second", "3.90");
  row("GPU Speed Of Light Throughput", "Memory Throughput", "%", "81.50");
  row("GPU Speed Of Light Throughput", "Duration", "us", "12.50");
  row("GPU Speed Of Light Throughput", "Compute (SM) Throughput", "cycle", "7");
  row("Occupancy", "Theoretical Occupancy", "%", "62.50");
  row("Occupancy", "Achieved Occupancy", "%", "55.10");
  write_text(dir / "ncu.csv", csv);
  const auto t = trace::read_traces({dir / "ncu.csv"});
  ASSERT_EQ(t.dispatches.size(), 1u);
  EXPECT_EQ(t.dispatches[0].duration_ns(), 12500);
  ASSERT_EQ(t.counter_names, (std::vector<std::string>{"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                                                       "sm__maximum_warps_per_active_cycle_pct"}))
      << "a label in another unit is not taken for the percentage; the Occupancy section's theoretical occupancy is ncu's own";
  EXPECT_DOUBLE_EQ(t.counter_values.at(0).value, 81.5);
  EXPECT_DOUBLE_EQ(t.counter_values.at(1).value, 62.5);
}

// The Speed Of Light section's clocks are kept under the raw names of ncu's section file, in cycles
// a second whatever unit ncu printed them in (the roofline puts a kernel's compute roof at its SM
// clock). The values are launch 0's of the real details page beside (ncu_details_torch_roofline.csv).
TEST(NcuCsv, TheSpeedOfLightSectionsClocksAreKeptAsRawMetrics) {
  const auto dir = fresh_dir("ncu_sol_clocks");
  std::string csv = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
                    "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  auto row = [&](const std::string& id, const std::string& section, const std::string& metric, const std::string& unit,
                 const std::string& value) {
    csv += "\"" + id + "\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(128, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\",\"" + section +
           "\",\"" + metric + "\",\"" + unit + "\",\"" + value + "\"\n";
  };
  const std::string sol = "GPU Speed Of Light Throughput";
  row("0", sol, "DRAM Frequency", "hz", "3,196,944,131.98");
  row("0", sol, "SM Frequency", "hz", "1,475,677,112.63");
  row("0", sol, "Elapsed Cycles", "cycle", "85,018");
  row("0", sol, "Duration", "ns", "56,896");
  row("0", "Compute Workload Analysis", "SM Frequency", "hz", "1");
  row("1", sol, "SM Frequency", "Ghz", "1.29");
  row("1", sol, "Duration", "us", "220");
  write_text(dir / "ncu.csv", csv);
  const auto t = trace::read_traces({dir / "ncu.csv"});
  ASSERT_EQ(t.dispatches.size(), 2u);
  std::map<std::pair<uint32_t, std::string>, double> values;
  for (const auto& v : t.counter_values) values[{v.dispatch, t.counter_names[v.counter]}] = v.value;
  const std::map<std::pair<uint32_t, std::string>, double> expected = {
      {{0, "dram__cycles_elapsed.avg.per_second"}, 3196944131.98},
      {{0, "gpc__cycles_elapsed.avg.per_second"}, 1475677112.63},
      {{0, "gpc__cycles_elapsed.max"}, 85018},
      {{1, "gpc__cycles_elapsed.avg.per_second"}, 1.29e9}};
  ASSERT_EQ(values.size(), expected.size()) << "another section's label is not the clock";
  for (const auto& [key, value] : expected) EXPECT_NEAR(values[key], value, 1e-3) << key.second;
}

// The raw page gives the barriers a block uses (launch__barrier_count), which bound blocks per SM
// from compute capability 9.0: cuBLAS's GEMM in the PyTorch program uses 3. The details page has
// none.
TEST(NcuCsv, TheRawPageGivesEachKernelsBarriers) {
  const auto t = trace::read_traces({source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv"});
  std::map<std::string, std::optional<int>> barriers;
  for (const auto& k : t.symbols) barriers[k.name().substr(0, 20)] = k.barriers;
  EXPECT_EQ(barriers.at("nvjet_sm90_tst_256x1"), 3);
  EXPECT_EQ(barriers.at("void at::vectorized_"), 0);
  EXPECT_EQ(barriers.at("void at::<unnamed>::"), 1);
  for (const auto& k : trace::read_traces({source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv"}).symbols) {
    EXPECT_FALSE(k.barriers) << k.name();
  }
}

// The raw page (a column per metric, a row of units after the header) of our softmax testbed on an
// H100, as rocm-perf profile --counters had ncu 2025.3.1 write it.
TEST(NcuCsv, RawPageOfTheSoftmaxTestbedOnAnH100) {
  const auto file = source_dir() / "tests/fixtures/ncu_raw_softmax.csv";
  ASSERT_EQ(trace::trace_format(file), trace::TraceFormat::ncu_csv);
  const auto t = trace::read_traces({file});
  ASSERT_EQ(t.dispatches.size(), 2u);
  EXPECT_EQ(t.dispatches[0].duration_ns(), 148000) << "gpu__time_duration.sum, 148,000 ns";
  EXPECT_EQ(t.dispatches[1].start_ns, 148000);
  EXPECT_EQ(t.dispatches[1].duration_ns(), 147840);
  const auto& g = t.geometry(t.dispatches[0]);
  EXPECT_EQ(g.workgroup, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(g.grid, (std::array<uint64_t, 3>{4 * 256, 1, 1}));
  const auto& k = t.symbols[static_cast<size_t>(t.dispatches[0].symbol)];
  EXPECT_EQ(k.mangled_name, "_Z13softmax_naivePKfPfii") << "as profile's counter pass asks ncu to name it";
  EXPECT_EQ(k.name(), "softmax_naive(float const*, float*, int, int)") << "shown demangled";
  EXPECT_EQ(k.arch_vgpr_count, 31);
  ASSERT_EQ(t.agents.size(), 1u);
  EXPECT_EQ(t.agents[0].name, "sm_90");
  EXPECT_EQ(t.agents[0].product_name, "NVIDIA H100 80GB HBM3") << "device__attribute_display_name";
  EXPECT_EQ(t.agents[0].compute_units, 132);
  const auto& names = t.counter_names;
  EXPECT_NE(std::find(names.begin(), names.end(), "sm__maximum_warps_per_active_cycle_pct"), names.end()) << "a metric is a counter";
  EXPECT_EQ(std::find(names.begin(), names.end(), "device__attribute_display_name"), names.end()) << "a name is no number";
}

// A report (.ncu-rep) is known by its first bytes and read as the CSV ncu exports of it, named as
// the report; without a way to run ncu it is refused, naming the export.
TEST(NcuCsv, AReportIsReadAsTheCsvNcuExportsOfIt) {
  const auto dir = fresh_dir("ncu_report");
  const auto report = dir / "r.ncu-rep";
  write_text(report, std::string("NVR\0\2\0\0\0", 8));
  ASSERT_EQ(trace::trace_format(report), trace::TraceFormat::ncu_report);
  std::string message;
  EXPECT_EQ(error_code_of([&] { trace::read_traces({report}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("ncu --import " + report.string() + " --csv --page raw"), std::string::npos) << message;
  trace::ReadOptions options;
  std::vector<fs::path> exported;
  options.ncu_report_pages = [&](const fs::path& file) {
    exported.push_back(file);
    return trace::NcuReportPages{read_file(source_dir() / "tests/fixtures/ncu_raw_softmax.csv"), "", "ncu said no", "", ""};
  };
  const auto t = trace::read_traces({report}, options);
  EXPECT_EQ(exported, std::vector<fs::path>{report});
  EXPECT_EQ(t.dispatches.size(), 2u);
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].path, report.string());
}

// A report's raw page has no rules: its details page, exported beside it, gives them to the same
// launches (matched by ID and kernel). Here the raw and details pages of the same 12 launches of
// the PyTorch program (recorded by two ncu runs of it on an H200, in the same order).
TEST(NcuCsv, AReportsDetailsPageGivesItsRulesToTheRawPagesLaunches) {
  const auto dir = fresh_dir("ncu_report_details");
  const auto report = dir / "torch.ncu-rep";
  write_text(report, std::string("NVR\0\2\0\0\0", 8));
  const auto raw = read_file(source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv");
  const auto details = read_file(source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv");
  auto read_with = [&](const std::string& details_page, const std::string& problem = "") {
    trace::ReadOptions options;
    options.ncu_report_pages = [&](const fs::path&) { return trace::NcuReportPages{raw, details_page, problem, "", ""}; };
    return trace::read_traces({report}, options);
  };
  const auto detailed = trace::read_traces({source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv"});
  const auto t = read_with(details);
  ASSERT_EQ(t.dispatches.size(), 12u);
  ASSERT_EQ(t.findings.size(), detailed.findings.size());
  ASSERT_FALSE(t.findings.empty());
  for (size_t i = 0; i < t.findings.size(); ++i) {
    EXPECT_EQ(t.findings[i].rule, detailed.findings[i].rule);
    EXPECT_EQ(t.findings[i].dispatch, detailed.findings[i].dispatch) << "the same launch";
  }
  EXPECT_EQ(t.counter_names, trace::read_traces({source_dir() / "tests/fixtures/ncu_raw_torch_roofline.csv"}).counter_names)
      << "the counters are the raw page's";
  auto warned = [](const trace::Trace& trace, const std::string& what) {
    return std::any_of(trace.warnings.begin(), trace.warnings.end(), [&](const auto& w) { return w.find(what) != std::string::npos; });
  };
  EXPECT_FALSE(warned(t, "details page"));

  // Without a details page, or with one that is not of these launches or not read, the raw page
  // is still the trace, and a warning says what is left out.
  const auto none = read_with("", "ncu --import ... --page details exited with status 1 (==ERROR== no)");
  EXPECT_EQ(none.dispatches.size(), 12u);
  EXPECT_TRUE(none.findings.empty());
  EXPECT_TRUE(warned(none, report.string() + ": no details page (ncu --import ... --page details exited with status 1 (==ERROR== no)): "
                              "ncu's rules of its launches are not read"));
  std::string other = details;
  for (size_t at = other.find("nvjet_sm90"); at != std::string::npos; at = other.find("nvjet_sm90", at + 1)) other[at] = 'N';
  const auto mismatched = read_with(other);
  EXPECT_LT(mismatched.findings.size(), t.findings.size());
  EXPECT_TRUE(warned(mismatched, "launches of its details page are not those of its raw page (ID and kernel)"));
  const auto unread = read_with(details.substr(0, details.rfind("\"ID\"") + 200) + "\n\"0\",\"1\"\n");
  EXPECT_EQ(unread.dispatches.size(), 12u);
  EXPECT_TRUE(unread.findings.empty());
  EXPECT_TRUE(warned(unread, report.string() + ": its details page, as ncu exported it, is not read (line "));
}

// A report's raw page prints no instances, and all of them would be a megabyte a launch: the
// thread instructions by opcode (the full set's instruction mix) come on a page of their own, that
// metric alone with its instances, given to the same launches by ID and kernel. Here the pages of
// two recordings of the PyTorch program's full set on an H100, and of its basic set, which has no
// such metric: ncu exports its launches alone.
TEST(NcuCsv, AReportsOpcodePageGivesTheRawPagesLaunchesTheirInstructionsByOpcode) {
  const auto dir = fresh_dir("ncu_report_opcodes");
  const auto report = dir / "torch.ncu-rep";
  write_text(report, std::string("NVR\0\2\0\0\0", 8));
  const auto raw = read_file(source_dir() / "tests/fixtures/ncu_import_raw_full_torch_roofline.csv");
  auto read_with = [&](const std::string& opcodes) {
    trace::ReadOptions options;
    options.ncu_report_pages = [&](const fs::path&) { return trace::NcuReportPages{raw, "", "", opcodes, ""}; };
    return trace::read_traces({report}, options);
  };
  auto counters = [](const trace::Trace& t) {
    std::map<std::pair<uint32_t, std::string>, double> out;
    for (const auto& v : t.counter_values) out[{v.dispatch, t.counter_names[v.counter]}] = v.value;
    return out;
  };
  const auto plain = counters(read_with(""));
  const auto t = read_with(read_file(source_dir() / "tests/fixtures/ncu_report_opcodes_torch_roofline_full.csv"));
  ASSERT_EQ(t.dispatches.size(), 12u);
  const std::string prefix = std::string(trace::kNcuOpcodeMetric) + '[';
  size_t added = 0;
  for (const auto& [key, value] : counters(t)) {
    if (auto it = plain.find(key); it != plain.end()) {
      EXPECT_EQ(it->second, value) << key.second << ": the raw page's value";
    } else {
      EXPECT_TRUE(key.second.starts_with(prefix)) << key.second;
      ++added;
    }
  }
  EXPECT_GT(added, 12u * 20);
  EXPECT_GT(counters(t).at({3, prefix + "HGMMA.64x128x16.F32.BF16]"}), 0) << "cuBLAS's bf16 GEMM, the fourth launch";
  EXPECT_EQ(t.warnings, read_with("").warnings) << "nothing more to say";

  EXPECT_EQ(counters(read_with(read_file(source_dir() / "tests/fixtures/ncu_report_opcodes_torch_roofline_basic.csv"))), plain)
      << "a basic set's page has its launches alone";
  EXPECT_EQ(counters(read_with(read_file(source_dir() / "tests/fixtures/ncu_full_instances_sgemm_h100.csv"))), plain)
      << "a page of other launches (ID 0 is another kernel) gives nothing";
  const auto unread = read_with("==ERROR== no such metric\n");
  EXPECT_EQ(counters(unread), plain);
  EXPECT_TRUE(said(unread, report.string() + ": its instructions by opcode, as ncu exported them, are not read (no header of "
                                             "Nsight Compute's CSV"));
}

TEST(NcuCsv, BadInputIsOneLineThatSaysWhat) {
  const auto dir = fresh_dir("ncu_bad");
  auto error = [&](const std::string& name, const std::string& text) {
    write_text(dir / name, text);
    std::string message;
    EXPECT_EQ(error_code_of([&] { trace::read_traces({dir / name}); }, &message), Errc::bad_input) << name;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  };
  const std::string identity = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",";
  const std::string details = identity + "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
  const std::string prefix = "\"0\",\"1\",\"a.out\",\"h\",\"k()\",\"1\",\"7\",";
  auto m = error("launch_only.csv", details + prefix + "\"Launch Statistics\",\"Block Size\",\"\",\"64\"\n");
  EXPECT_NE(m.find("no kernel launch in it has a duration"), std::string::npos) << m;
  EXPECT_NE(m.find("--section SpeedOfLight"), std::string::npos) << m;
  m = error("raw_empty.csv", identity + "\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\"\n");
  EXPECT_NE(m.find("Nsight Compute's CSV of no kernel launch"), std::string::npos) << m;
  m = error("no_stream.csv", "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Section Name\",\"Metric Name\","
                             "\"Metric Unit\",\"Metric Value\"\n");
  EXPECT_NE(m.find("no column Stream in Nsight Compute's header"), std::string::npos) << m;
  m = error("open_quote.csv", details + prefix + "\"Speed Of Light\",\"Duration\",\"ns\",\"5\n");
  EXPECT_NE(m.find("line 2: a quoted field is not closed"), std::string::npos) << m;
  m = error("short.csv", details + "\"0\",\"1\"\n");
  EXPECT_NE(m.find("line 2: 2 fields where the header has 11"), std::string::npos) << m;
  m = error("id.csv", details + "\"zero\",\"1\",\"a.out\",\"h\",\"k()\",\"1\",\"7\",\"S\",\"Duration\",\"ns\",\"5\"\n");
  EXPECT_NE(m.find("line 2: ID is 'zero', not a number"), std::string::npos) << m;
  m = error("huge_id.csv", details + "\"4.4e105\",\"1\",\"a.out\",\"h\",\"k()\",\"1\",\"7\",\"S\",\"Duration\",\"ns\",\"5\"\n");
  EXPECT_NE(m.find("line 2: ID is '4.4e105', not a number of a launch"), std::string::npos) << "found by fuzz_ncu_trace: " << m;
}

}  // namespace
}  // namespace rpl::test
