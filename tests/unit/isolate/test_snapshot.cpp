#include <fstream>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/memory_compare.hpp>
#include <rpl/isolate/snapshot.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::isolate {
namespace {
namespace fs = std::filesystem;

void write_region(const fs::path& dir, const MemoryRegion& r, const std::string& bytes) {
  fs::create_directories(dir / "memory");
  write_output_file(dir / r.file, bytes);
}

fs::path make_snapshot(const std::string& name) { return test::write_test_snapshot(test::fresh_dir(name)); }

void expect_bad(const fs::path& dir, const std::string& message) {
  try {
    read_snapshot(dir);
    ADD_FAILURE() << "read " << dir;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(Snapshot, RoundTripAndSchemas) {
  const auto dir = make_snapshot("snap-ok");
  const auto s = read_snapshot(dir);
  EXPECT_EQ(s.dispatch.mangled_name, "_Z5scalePfPKfi");
  EXPECT_EQ(s.dispatch.arguments.size(), 3u);
  ASSERT_EQ(s.memory.regions.size(), 2u);
  EXPECT_EQ(s.memory.regions[0].base, 0x7f0000000000u);  // sorted by address
  EXPECT_EQ(s.memory.regions[1].file, "memory/region_0x00007f0000200000.bin");
  EXPECT_EQ(test::schema_errors(test::read_text(dir / "dispatch.json"), "snapshot-dispatch"), "");
  EXPECT_EQ(test::schema_errors(test::read_text(dir / "memory_regions.json"), "snapshot-regions"), "");
}

TEST(SnapshotBadInput, EachFileChecked) {
  expect_bad("/nonexistent/snap", "no such folder");
  {
    const auto dir = make_snapshot("snap-missing");
    fs::remove(dir / "kernarg.bin");
    expect_bad(dir, "kernarg.bin: missing");
  }
  {
    const auto dir = make_snapshot("snap-short-region");
    std::ofstream(dir / region_file_name(0x7f0000200000), std::ios::trunc) << "abc";
    expect_bad(dir, "3 bytes, but region");
  }
  {
    const auto dir = make_snapshot("snap-no-code");
    fs::remove(dir / "kernel.cubin");
    expect_bad(dir, "kernel.cubin: missing or empty");
  }
  {
    const auto dir = make_snapshot("snap-corrupt-code");
    write_output_file(dir / "kernel.cubin", "PK\x03\x04 not an ELF file at all");
    expect_bad(dir, "kernel.cubin: not a code object for NVIDIA GPUs");
    write_output_file(dir / "kernel.cubin", test::elf_header(224));  // an AMD code object in an NVIDIA snapshot
    expect_bad(dir, "kernel.cubin: not a code object for NVIDIA GPUs");
  }
  {
    const auto dir = make_snapshot("snap-overlap");
    std::vector<MemoryRegion> regions{{0x1000, 16, "device", region_file_name(0x1000)}, {0x1008, 8, "device", region_file_name(0x1008)}};
    write_region(dir, regions[0], std::string(16, 'a'));
    write_region(dir, regions[1], std::string(8, 'b'));
    write_memory_regions(dir, regions);
    expect_bad(dir, "overlap");
  }
  {
    const auto dir = make_snapshot("snap-escape");
    auto text = test::read_text(dir / "memory_regions.json");
    text.replace(text.find("memory/region_0x00007f0000000000.bin"), 36, "../../../etc/passwd");
    write_output_file(dir / "memory_regions.json", text);
    expect_bad(dir, "must name a file inside the folder");
  }
  {
    const auto dir = make_snapshot("snap-json");
    write_output_file(dir / "dispatch.json", "{\"format\": \"rocm-perf snapshot\"");
    expect_bad(dir, "dispatch.json: not JSON");
  }
  {
    const auto dir = make_snapshot("snap-args");
    auto text = test::read_text(dir / "dispatch.json");
    text.replace(text.find("\"offset\": 16"), 12, "\"offset\": 18");
    write_output_file(dir / "dispatch.json", text);
    expect_bad(dir, "outside the 20-byte argument buffer");
  }
}

TEST(MemoryCompare, BitwiseAndWithinTolerance) {
  const auto a = make_snapshot("cmp-a"), b = make_snapshot("cmp-b");
  const auto ia = read_memory_image(a);
  EXPECT_TRUE(compare_memory(ia, read_memory_image(b), {}).equal());
  write_output_file(b / region_file_name(0x7f0000200000), test::float_bytes({1, 2, 3.0001f, 5}));
  const auto ib = read_memory_image(b);
  auto bitwise = compare_memory(ia, ib, {});
  EXPECT_FALSE(bitwise.equal());
  EXPECT_EQ(bitwise.regions[0].differing, 0u);
  EXPECT_EQ(bitwise.regions[1].first_offset, std::optional<uint64_t>(8));
  CompareOptions f32{ElementType::f32, 1e-3, 0};
  auto loose = compare_memory(ia, ib, f32);
  EXPECT_EQ(loose.regions[1].differing, 1u);  // 4 vs 5 is beyond 1e-3; 3 vs 3.0001 is within
  EXPECT_EQ(loose.regions[1].first_offset, std::optional<uint64_t>(12));
  EXPECT_EQ(loose.regions[1].first_a, "4");
  EXPECT_EQ(loose.regions[1].first_b, "5");
  EXPECT_DOUBLE_EQ(loose.regions[1].max_abs_error, 1.0);
  CompareOptions wide{ElementType::f32, 0.5, 0};
  EXPECT_TRUE(compare_memory(ia, ib, wide).equal());
}

TEST(MemoryCompare, NanEqualsOnlyNanAndHalfPrecision) {
  const auto a = make_snapshot("nan-a"), b = make_snapshot("nan-b");
  write_output_file(a / region_file_name(0x7f0000200000), test::float_bytes({NAN, 0.0f, 1, 1}));
  write_output_file(b / region_file_name(0x7f0000200000), test::float_bytes({NAN, -0.0f, NAN, 1}));
  auto r = compare_memory(read_memory_image(a), read_memory_image(b), {ElementType::f32, 0, 0});
  EXPECT_EQ(r.regions[1].differing, 1u);  // NaN = NaN and 0 = -0; 1 vs NaN differs
  // f16 1.0 (0x3c00) against 1.0009765625 (0x3c01): within an rtol of 1e-3.
  write_output_file(a / region_file_name(0x7f0000000000), std::string("\x00\x3c\x00\x3c\x00\x3c\x00\x3c", 8));
  write_output_file(b / region_file_name(0x7f0000000000), std::string("\x01\x3c\x00\x3c\x00\x3c\x00\x3c", 8));
  auto half = compare_memory(read_memory_image(a), read_memory_image(b), {ElementType::f16, 1e-3, 0});
  EXPECT_EQ(half.regions[0].differing, 0u);
  EXPECT_NEAR(half.regions[0].max_rel_error, 0.0009756, 1e-6);
}

// The one rule: relative to the reference (the second), atol added; NaN matches NaN alone.
TEST(MemoryCompare, TheToleranceIsRelativeToTheReference) {
  EXPECT_TRUE(within_tolerance(110, 100, 0.1, 0));
  EXPECT_FALSE(within_tolerance(100, 110, 0.0, 9.9));
  EXPECT_TRUE(within_tolerance(100, 110, 0.0, 10));
  EXPECT_TRUE(within_tolerance(100, 110, 0.095, 0)) << "10 apart: within 0.095 of the reference (10.45)";
  EXPECT_FALSE(within_tolerance(110, 100, 0.095, 0)) << "10 apart: not within 0.095 of the reference (9.5)";
  EXPECT_TRUE(within_tolerance(NAN, NAN, 0, 0));
  EXPECT_FALSE(within_tolerance(NAN, 1, 1, 1));
  EXPECT_FALSE(within_tolerance(INFINITY, 1, 1, 1));
  EXPECT_TRUE(within_tolerance(INFINITY, INFINITY, 0, 0));
  EXPECT_EQ(test::error_code_of([] { check_tolerances_apply({ElementType::bytes, 0.1, 0}); }), Errc::bad_input);
  EXPECT_EQ(test::error_code_of([] { check_tolerances_apply({ElementType::f32, 0.1, 0.1}); }), std::nullopt);
}

TEST(MemoryCompare, DifferentRegionSetsAreBadInput) {
  const auto a = make_snapshot("set-a"), b = make_snapshot("set-b");
  std::vector<MemoryRegion> one{{0x7f0000000000, 8, "pool", region_file_name(0x7f0000000000)}};
  write_memory_regions(b, one);
  try {
    compare_memory(read_memory_image(a), read_memory_image(b), {});
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find("not dumps of the same dispatch"), std::string::npos) << e.what();
  }
}

TEST(CliReplayCompare, ExitCodesAndJson) {
  const auto a = make_snapshot("cli-a"), b = make_snapshot("cli-b");
  auto same = test::run_cli({"replay", "compare", a.string(), b.string()});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out.rfind("equal: 2 regions, 24 bytes (bitwise)", 0), 0u) << same.out;
  write_output_file(b / region_file_name(0x7f0000200000), test::float_bytes({1, 2, 3, 5}));
  auto diff = test::run_cli({"replay", "compare", "--json", "--dtype", "f32", a.string(), b.string()});
  EXPECT_EQ(diff.exit_code, 1) << diff.err;
  EXPECT_EQ(test::schema_errors(diff.out, "replay-compare"), "");
  EXPECT_NE(diff.out.find("\"equal\": false"), std::string::npos);
  auto bad = test::run_cli({"replay", "compare", "--rtol", "0.1", a.string(), b.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("give --dtype"), std::string::npos) << bad.err;
  auto missing = test::run_cli({"replay", "compare", a.string(), "/nonexistent"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(test::count_lines(missing.err), 1) << missing.err;
}

}  // namespace
}  // namespace rpl::isolate
