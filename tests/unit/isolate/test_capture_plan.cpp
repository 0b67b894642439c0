#include <cstring>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/isolate/capture_plan.hpp>
#include <rpl/isolate/capture_summary.hpp>

namespace rpl::isolate {
namespace {

TEST(AllocationTable, FollowsAllocationsAndFrees) {
  AllocationTable t;
  t.add(0x7f0000200000, 4096, "device");
  t.add(0x7f0000000000, 1 << 20, "device");
  t.add(0x7f0000400000, 256, "pool");
  t.add(0x7f0000600000, 0, "device");  // nothing to capture
  t.remove(0x7f0000400000);
  t.remove(0x1234);  // unknown: ignored
  const auto r = t.regions();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].base, 0x7f0000000000u);  // sorted by base
  EXPECT_EQ(r[1].file, "memory/region_0x00007f0000200000.bin");
  EXPECT_EQ(t.total_bytes(), (1u << 20) + 4096u);
}

TEST(AllocationTable, AnAllocationOverMissedFreesReplacesThem) {
  AllocationTable t;
  t.add(0x1000, 0x100, "device");
  t.add(0x1100, 0x100, "device");
  t.add(0x1200, 0x100, "device");
  t.add(0x10f0, 0x20, "pool");  // the first two were freed unseen, and the memory handed out again
  const auto r = t.regions();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].base, 0x10f0u);
  EXPECT_EQ(r[0].kind, "pool");
  EXPECT_EQ(r[1].base, 0x1200u);
}

TEST(DispatchSelector, CountsLaunchesPerKernel) {
  DispatchSelector s("softmax", 2);
  EXPECT_FALSE(s.on_launch("_Z13softmax_naivePKfPfii"));
  EXPECT_FALSE(s.on_launch("_Z5otherv"));
  EXPECT_FALSE(s.on_launch("_Z13softmax_naivePKfPfii"));
  EXPECT_FALSE(s.on_launch("_Z5otherv"));
  EXPECT_FALSE(s.on_launch("_Z5otherv"));  // the third launch of a kernel that does not match
  EXPECT_EQ(s.on_launch("_Z13softmax_naivePKfPfii"), std::optional<uint64_t>(2));
  EXPECT_EQ(s.launches().at("_Z5otherv"), 3u);
  // The demangled name is searched too: "(float const*" is only in it.
  DispatchSelector d(R"(scale\(float\*)", 0);
  EXPECT_EQ(d.on_launch("_Z5scalePfPKfi"), std::optional<uint64_t>(0));
  EXPECT_THROW(DispatchSelector("([", 0), Error);
}

TEST(PackArguments, LaysOutEachParameterAtItsOffset) {
  float* pointer = reinterpret_cast<float*>(0x7f0000001000);
  int n = 1000;
  float scale = 2.5f;
  void* values[] = {&pointer, &n, &scale};
  const auto buffer = pack_arguments({{0, 8}, {8, 4}, {12, 4}}, values);
  ASSERT_EQ(buffer.size(), 16u);
  uint64_t p = 0;
  std::memcpy(&p, buffer.data(), 8);
  EXPECT_EQ(p, 0x7f0000001000u);
  int m = 0;
  std::memcpy(&m, buffer.data() + 8, 4);
  EXPECT_EQ(m, 1000);
}

TEST(ReservationSpans, RoundToPagesAndMergeNeighbours) {
  const uint64_t mib2 = 2 << 20;
  std::vector<MemoryRegion> regions{{0x7f0000000000, 4096, "device", ""},
                                    {0x7f0000000200 + 4096, 100, "device", ""},  // same page
                                    {0x7f0000200000, mib2 + 1, "device", ""},    // touches the first page, spills into a third
                                    {0x7f0010000000, 1, "device", ""}};
  const auto spans = reservation_spans(regions, mib2);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].base, 0x7f0000000000u);
  EXPECT_EQ(spans[0].size, 3 * mib2);
  EXPECT_EQ(spans[1].base, 0x7f0010000000u);
  EXPECT_EQ(spans[1].size, mib2);
}

TEST(ArenaSpans, AlignedGrownAndMerged) {
  const uint64_t mib = 1 << 20;
  const auto arenas = arena_spans({{0x7f069fe00000, 2 * mib}, {0x7f06a8000000, 4 * mib}, {0x7f2000000000, 600 * mib}}, 32 * mib, 512 * mib);
  ASSERT_EQ(arenas.size(), 2u);
  EXPECT_EQ(arenas[0].base, 0x7f069e000000u);  // rounded down to 32 MiB
  EXPECT_EQ(arenas[0].size, 672 * mib);        // each grown to 512 MiB, then the two merged
  EXPECT_EQ(arenas[1].base, 0x7f2000000000u);
  EXPECT_EQ(arenas[1].size, 608 * mib);        // 600 MiB rounded up to 32 MiB
}

TEST(CaptureStatus, ReadsWhatTheLibraryWrites) {
  const auto s = parse_capture_status(
      R"({"captured": true, "kernel": "_Z1kv", "dispatch_index": 3, "correlation_id": 9, "regions": 2, "bytes": 4096,
          "capture_ms": 1.5, "after_ms": null, "warnings": ["w"]})",
      "capture_status.json");
  EXPECT_TRUE(s.captured);
  EXPECT_EQ(s.dispatch_index, 3u);
  EXPECT_FALSE(s.after_ms);
  const auto none = parse_capture_status(R"({"captured": false, "launches": {"_Z1kv": 4}})", "capture_status.json");
  EXPECT_EQ(none.launches.at("_Z1kv"), 4u);
  EXPECT_THROW(parse_capture_status("{}", "capture_status.json"), Error);
}

TEST(CaptureStatus, WhatIsWrittenReadsBackTheSame) {
  CaptureStatus captured;
  captured.captured = true;
  captured.kernel = "_Z1kPf";
  captured.dispatch_index = 2;
  captured.correlation_id = 77;
  captured.regions = 3;
  captured.bytes = 1 << 20;
  captured.capture_ms = 4.25;
  captured.after_ms = 0.5;
  captured.warnings = {"globals not captured"};
  CaptureStatus failed;
  failed.error = "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS";
  CaptureStatus nothing;
  nothing.launches = {{"_Z1av", 3}, {"_Z1bv", 1}};
  for (const auto& s : {captured, failed, nothing}) {
    const auto text = format_capture_status(s);
    const auto back = parse_capture_status(text, "capture_status.json");
    EXPECT_EQ(format_capture_status(back), text);
    EXPECT_EQ(back.captured, s.captured);
    EXPECT_EQ(back.error, s.error);
    EXPECT_EQ(back.launches, s.launches);
    EXPECT_EQ(back.correlation_id, s.correlation_id);
    EXPECT_EQ(back.after_ms, s.after_ms);
    EXPECT_EQ(back.warnings, s.warnings);
  }
  EXPECT_EQ(nlohmann::json::parse(format_capture_status(failed)).contains("launches"), false);
}

TEST(KernelTimeInTrace, TheCapturedDispatchAndTheMedian) {
  trace::Trace t;
  t.symbols.resize(2);
  t.symbols[0].mangled_name = "_Z1kv";
  t.symbols[1].mangled_name = "_Z5otherv";
  auto dispatch = [](int64_t start, int64_t ns, int32_t symbol) {
    trace::Dispatch d{};
    d.start_ns = start;
    d.end_ns = start + ns;
    d.symbol = symbol;
    return d;
  };
  for (auto d : {dispatch(300, 3000, 0), dispatch(100, 1000, 0), dispatch(200, 9000, 1), dispatch(250, 2000, 0)}) t.dispatches.push_back(d);
  const auto k = kernel_time_in_trace(t, "_Z1kv", 1);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->dispatches, 3u);
  EXPECT_DOUBLE_EQ(*k->captured_dispatch_ms, 0.002);  // by start time: 100, 250, 300
  EXPECT_DOUBLE_EQ(k->median_ms, 0.002);
  EXPECT_FALSE(kernel_time_in_trace(t, "_Z1kv", 5)->captured_dispatch_ms);
  EXPECT_FALSE(kernel_time_in_trace(t, "_Z4nonev", 0));
}

}  // namespace
}  // namespace rpl::isolate
