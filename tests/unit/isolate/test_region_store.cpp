// Region files: the chunked encoding of format 1.1 (zero chunks as nothing, the rest zstd or raw)
// and the raw files of format 1.0, read, compared and refused the same way.
#include <cstring>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/memory_compare.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

#include "test_support.hpp"

namespace rpl::isolate {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kMiB = kChunkBytes;

// 5.5 MiB: chunk 0 random (incompressible), 1 zero, 2 a repeating pattern, 3 zero but for one
// byte, 4 zero, and a half chunk of pattern at the end.
std::string mixed_bytes() {
  std::string b(5 * kMiB + kMiB / 2, '\0');
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < kMiB; i += 8) {
    const uint64_t v = rng();
    std::memcpy(b.data() + i, &v, 8);
  }
  for (uint64_t i = 2 * kMiB; i < 3 * kMiB; ++i) b[i] = static_cast<char>(i % 7);
  b[3 * kMiB + 12345] = 'x';
  for (uint64_t i = 5 * kMiB; i < b.size(); ++i) b[i] = static_cast<char>(i % 3 + 1);
  return b;
}

MemoryRegion chunked_region(const fs::path& dir, uint64_t base, const std::string& bytes) {
  MemoryRegion r{base, bytes.size(), "device", chunked_region_file_name(base), "chunks"};
  fs::create_directories(dir / "memory");
  write_chunked_region(dir / r.file, bytes);
  return r;
}

template <typename F>
void expect_bad_input(F f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(RegionStore, ZeroChunksAreStoredAsNothingAndEverythingReadsBack) {
  const auto dir = test::fresh_dir("region-mixed");
  const std::string bytes = mixed_bytes();
  fs::create_directories(dir / "memory");
  const auto stored = write_chunked_region(dir / chunked_region_file_name(0x7f0000000000), bytes);
  EXPECT_EQ(stored.skipped, 2 * kMiB) << "chunks 1 and 4";
  EXPECT_EQ(stored.stored, fs::file_size(dir / chunked_region_file_name(0x7f0000000000)));
  // The random chunk is kept raw; the pattern and the lone byte compress to almost nothing.
  EXPECT_GT(stored.stored, kMiB);
  EXPECT_LT(stored.stored, kMiB + kMiB / 8);

  const MemoryRegion r{0x7f0000000000, bytes.size(), "device", chunked_region_file_name(0x7f0000000000), "chunks"};
  EXPECT_EQ(read_region(dir, r), bytes);
  // A stretch across chunk boundaries, starting and ending inside chunks.
  std::string part(2 * kMiB + 10, '\0');
  const RegionFile file(dir, r);
  file.read(kMiB - 5, part.size(), part.data());
  EXPECT_EQ(part, bytes.substr(kMiB - 5, part.size()));
  const auto runs = file.runs();
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_FALSE(runs[0].zero);
  EXPECT_TRUE(runs[1].zero);
  EXPECT_EQ(runs[1].offset, kMiB);
  EXPECT_FALSE(runs[2].zero);
  EXPECT_EQ(runs[2].size, 2 * kMiB) << "chunks 2 and 3, merged";
  EXPECT_TRUE(runs[3].zero);
  EXPECT_EQ(runs[4].offset + runs[4].size, bytes.size());
}

TEST(RegionStore, TheSameBytesGiveTheSameFile) {
  const auto dir = test::fresh_dir("region-deterministic");
  const std::string bytes = mixed_bytes();
  chunked_region(dir / "a", 0x1000, bytes);
  chunked_region(dir / "b", 0x1000, bytes);
  EXPECT_EQ(read_file(dir / "a" / chunked_region_file_name(0x1000)), read_file(dir / "b" / chunked_region_file_name(0x1000)));
}

TEST(RegionStore, ADamagedFileIsRefusedNamingItAndTheChunk) {
  const auto dir = test::fresh_dir("region-damaged");
  const std::string bytes = mixed_bytes();
  const auto r = chunked_region(dir, 0x2000, bytes);
  const fs::path file = dir / r.file;
  const std::string good = read_file(file);

  // A byte flipped inside the compressed tail chunk (its index entry: 32 + 5 x 16 bytes in, the
  // offset then the stored size): zstd's checksum finds it.
  uint64_t offset = 0;
  uint32_t stored = 0;
  std::memcpy(&offset, good.data() + 32 + 5 * 16, 8);
  std::memcpy(&stored, good.data() + 32 + 5 * 16 + 8, 4);
  ASSERT_GT(stored, 8u);
  std::string damaged = good;
  damaged[offset + stored / 2] ^= 0x55;
  write_output_file(file, damaged);
  expect_bad_input([&] { read_region(dir, r); }, "chunk 5 is damaged");

  write_output_file(file, good.substr(0, 100));  // cut inside the index
  expect_bad_input([&] { check_region_file(dir, r, "region 1"); }, "its chunk index is damaged");
  write_output_file(file, "not a region file at all, but long enough");
  expect_bad_input([&] { check_region_file(dir, r, "region 1"); }, "not a chunked region file");
  write_output_file(file, good);
  MemoryRegion shorter = r;
  shorter.size -= 1;
  expect_bad_input([&] { check_region_file(dir, shorter, "region 1"); }, "but memory_regions.json says");
  fs::remove(file);
  expect_bad_input([&] { check_region_file(dir, r, "region 1"); }, "missing (region 1)");
}

// A dump of format 1.0 (raw files, no encoding) and one of 1.1 compare as the same memory, and a
// byte that differs past the first window is found where it is.
TEST(RegionStore, ARawDumpOfFormatOneZeroComparesWithAChunkedOne) {
  const auto dir = test::fresh_dir("region-formats");
  std::string bytes(70 * kMiB, '\0');  // more than one comparison window, almost all zero
  bytes[5] = 1;
  bytes[69 * kMiB + 3] = 2;
  fs::create_directories(dir / "old/memory");
  write_output_file(dir / "old" / region_file_name(0x7e0000000000), bytes);
  nlohmann::json old = {{"schema_version", "1.0"},
                        {"format", "rocm-perf snapshot"},
                        {"regions", {{{"base", "0x00007e0000000000"}, {"size", bytes.size()}, {"kind", "pool"},
                                      {"file", region_file_name(0x7e0000000000)}}}}};
  write_output_file(dir / "old/memory_regions.json", old.dump());

  std::vector<MemoryRegion> regions{{0x7e0000000000, bytes.size(), "pool", ""}};
  const auto read = [&](uint64_t address, uint64_t n, char* into) { std::memcpy(into, bytes.data() + (address - 0x7e0000000000), n); };
  std::vector<char> staging(8 * kMiB);
  const auto stored = dump_memory(dir / "new", regions, read, staging, 1.0);
  EXPECT_EQ(stored.skipped, 68 * kMiB);
  EXPECT_LT(stored.stored, 64 * 1024u);

  const auto a = read_memory_image(dir / "old"), b = read_memory_image(dir / "new");
  EXPECT_EQ(a.regions[0].encoding, "raw");
  EXPECT_EQ(b.regions[0].encoding, "chunks");
  const auto same = compare_memory(a, b, {});
  EXPECT_TRUE(same.equal());
  EXPECT_EQ(same.regions[0].elements, bytes.size());

  bytes[69 * kMiB + 3] = 9;
  bytes[69 * kMiB + 4] = 9;
  regions[0].file.clear();
  dump_memory(dir / "changed", regions, read, staging, 1.0);
  const auto diff = compare_memory(a, read_memory_image(dir / "changed"), {});
  EXPECT_FALSE(diff.equal());
  EXPECT_EQ(diff.regions[0].differing, 2u);
  EXPECT_EQ(diff.regions[0].first_offset, 69 * kMiB + 3);
  EXPECT_EQ(diff.regions[0].first_a, "0x02");
  EXPECT_EQ(diff.regions[0].first_b, "0x09");
}

TEST(RegionStore, ADumpTheDiskCannotHoldIsRefusedBeforeAnythingIsWritten) {
  const auto dir = test::fresh_dir("region-disk");
  const std::string bytes = mixed_bytes();
  std::vector<MemoryRegion> regions{{0x3000, bytes.size(), "device", ""}};
  std::vector<char> staging(4 * kMiB);
  const auto read = [&](uint64_t address, uint64_t n, char* into) { std::memcpy(into, bytes.data() + (address - 0x3000), n); };
  // Headroom as large as no disk has: the figures are what matters.
  try {
    dump_memory(dir / "dump", regions, read, staging, 1e12);
    ADD_FAILURE() << "a dump larger than the disk was written";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the snapshot needs up to"), std::string::npos) << what;
    EXPECT_NE(what.find("(3.5 MiB of the 5.5 MiB captured is not zero)"), std::string::npos) << what;
    EXPECT_NE(what.find("free"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(dir / "dump/memory_regions.json"));
  EXPECT_TRUE(fs::is_empty(dir / "dump/memory"));
}

TEST(RegionStore, AnUnknownEncodingIsRefused) {
  const auto dir = test::fresh_dir("region-encoding");
  fs::create_directories(dir / "memory");
  write_output_file(dir / region_file_name(0x4000), std::string(8, '\0'));
  nlohmann::json doc = {{"schema_version", "1.1"},
                        {"format", "rocm-perf snapshot"},
                        {"regions", {{{"base", "0x0000000000004000"}, {"size", 8}, {"kind", "device"},
                                      {"file", region_file_name(0x4000)}, {"encoding", "lz4"}}}}};
  write_output_file(dir / "memory_regions.json", doc.dump());
  expect_bad_input([&] { read_memory_image(dir); }, "encoding 'lz4' is neither raw nor chunks");
}

}  // namespace
}  // namespace rpl::isolate
