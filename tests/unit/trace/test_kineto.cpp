// The PyTorch profiler (Kineto) reader: a real trace of a training step on an H200
// (tests/fixtures/kineto, scripts/gpu/run_kineto.sh), the older and the ROCm forms, bad input.
#include <fstream>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/trace/trace_reader.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

const fs::path kStep = source_dir() / "tests/fixtures/kineto/torch_step_h200.json";

TEST(Kineto, RealTrainingStepOnAnH200) {
  ASSERT_EQ(trace::trace_format(kStep), trace::TraceFormat::kineto);
  const auto t = trace::read_traces({kStep});
  EXPECT_EQ(t.dispatches.size(), 63u);
  EXPECT_EQ(t.memory_copies.size(), 18u) << "9 copies and 9 memsets";
  ASSERT_EQ(t.agents.size(), 1u);
  EXPECT_EQ(t.agents[0].name, "sm_90");
  EXPECT_EQ(t.agents[0].product_name, "NVIDIA H200");
  EXPECT_EQ(t.agents[0].compute_units, 132);
  const auto& first = t.dispatches[0];
  const auto& gemm = t.symbols[static_cast<size_t>(first.symbol)];
  EXPECT_EQ(gemm.name(), "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas");
  EXPECT_EQ(gemm.arch_vgpr_count, 255);
  EXPECT_TRUE(gemm.registers_known);
  // "ts": 4824126052648.274, "dur": 179.264 (microseconds), after baseTimeNanoseconds: to the nanosecond.
  EXPECT_EQ(first.start_ns, 1790857026000000000 + 4824126052648274);
  EXPECT_EQ(first.duration_ns(), 179264);
  EXPECT_EQ(first.stream_id, 13);
  EXPECT_EQ(t.geometry(first).grid, (std::array<uint64_t, 3>{16 * 128, 16, 1})) << "blocks times threads: work-items";
  EXPECT_EQ(t.geometry(first).workgroup, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(t.geometry(first).group_segment_size, 33792u);
  size_t syncs = 0;
  for (const auto& op : t.event_operations) syncs += op.kind == trace::EventOperationKind::device_synchronize;
  EXPECT_EQ(syncs, 2u) << "torch.cuda.synchronize() and the profiler's own at its end";
  EXPECT_TRUE(t.host_calls.empty()) << "host calls only when asked";
  trace::ReadOptions with_calls;
  with_calls.host_calls = true;
  EXPECT_EQ(trace::read_traces({kStep}, with_calls).host_calls.size(), 128u) << "122 runtime and 6 driver calls";
}

// ROCm's Kineto kernels carry no registers, grid or block; the 2021 format wrote "Kernel".
TEST(Kineto, RocmAndOlderKernelEventsSayWhatTheyLack) {
  const auto dir = fresh_dir("kineto_forms");
  write_text(dir / "rocm.json",
        R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304}],
            "traceEvents": [{"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4>(int)", "pid": 0, "tid": 1, "ts": 10.5, "dur": 2.25,
                             "args": {"External id": 3, "correlation": 9, "device": 0, "kind": "Dispatch Kernel", "stream": 0}}]})J");
  const auto rocm = trace::read_traces({dir / "rocm.json"});
  ASSERT_EQ(rocm.dispatches.size(), 1u);
  EXPECT_EQ(rocm.dispatches[0].duration_ns(), 2250);
  EXPECT_FALSE(rocm.symbols[0].registers_known);
  EXPECT_EQ(rocm.agents[0].vendor_name, "AMD");
  EXPECT_TRUE(std::any_of(rocm.warnings.begin(), rocm.warnings.end(), [](const std::string& w) { return w.find("without register counts") != std::string::npos; }));
  write_text(dir / "old.json", R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 1, "dur": 1,
                             "args": {"stream": 7, "registers per thread": 32, "grid": [4, 1, 1], "block": [256, 1, 1]}}]})");
  const auto old = trace::read_traces({dir / "old.json"});
  ASSERT_EQ(old.dispatches.size(), 1u);
  EXPECT_EQ(old.geometry(old.dispatches[0]).grid[0], 1024u);
}

TEST(Kineto, BadInputIsOneLine) {
  const auto dir = fresh_dir("kineto_bad");
  const std::string whole = read_text(kStep);
  write_text(dir / "cut.json", whole.substr(0, whole.size() / 2));
  std::string m;
  EXPECT_EQ(error_code_of([&] { trace::read_traces({dir / "cut.json"}); }, &m), Errc::bad_input);
  EXPECT_NE(m.find("not well-formed JSON (cut short?)"), std::string::npos) << m;
  write_text(dir / "perfetto.json", R"({"traceEvents": [], "displayTimeUnit": "ns"})");
  EXPECT_EQ(error_code_of([&] { trace::read_traces({dir / "perfetto.json"}); }, &m), Errc::bad_input);
  EXPECT_NE(m.find("a JSON file of no trace format read here"), std::string::npos) << m;
  write_text(dir / "events_not_a_list.json", R"({"schemaVersion": 1, "deviceProperties": [], "traceEvents": {}})");
  EXPECT_EQ(error_code_of([&] { trace::read_traces({dir / "events_not_a_list.json"}); }, &m), Errc::bad_input);
  EXPECT_NE(m.find("not a PyTorch profiler trace"), std::string::npos) << m;
}

}  // namespace
}  // namespace rpl::test
