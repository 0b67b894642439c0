// The optimizer's oracle without a GPU: a stand-in replayer plays a kernel that reads one region
// and writes the other, the same values the launch before it had written, so that only poisoning
// tells which bytes it writes and a candidate that does nothing fails.
#include <sys/stat.h>

#include <cstring>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/optimize/oracle.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kInput = test::kTestInput, kOutput = test::kTestOutput;
const std::string kResult = test::test_result_bytes();
using test::stand_in_replay;

// The code objects: an ELF header and what the stand-in kernel does (test::stand_in_replay).
std::string code(const std::string& behaviour) { return test::elf_header(190) + behaviour; }

isolate::Snapshot recomputing_snapshot(const fs::path& dir) { return isolate::read_snapshot(test::write_recomputing_snapshot(dir)); }

TEST(Oracle, FindsTheBytesAKernelRewritesWithTheValuesTheyHeld) {
  const auto dir = test::fresh_dir("oracle-find");
  const auto s = recomputing_snapshot(dir / "snap");
  EXPECT_TRUE(differing_bytes(s.memory, isolate::read_memory_image(dir / "snap/after")).empty());
  const auto found = find_written_bytes(s, code("compute"), dir / "work", stand_in_replay);
  ASSERT_EQ(found.bytes.size(), 1u) << "the input is read, not written";
  EXPECT_EQ(found.bytes.at(kOutput), (ByteRanges{{0, 16}}));
  EXPECT_TRUE(found.notes.empty());
}

TEST(Oracle, ACandidateThatDoesNothingFailsWhereTheOutputWasAlreadyRight) {
  const auto dir = test::fresh_dir("oracle-noop");
  const auto s = recomputing_snapshot(dir / "snap");
  const auto written = find_written_bytes(s, code("compute"), dir / "work", stand_in_replay).bytes;
  EXPECT_TRUE(check_on_oracle(s, code("compute"), written, dir / "good", stand_in_replay, {}).passed);
  const auto noop = check_on_oracle(s, code("nothing"), written, dir / "noop", stand_in_replay, {});
  EXPECT_FALSE(noop.passed);
  EXPECT_NE(noop.failure.find("16 of 16 bytes differ, the first at byte 0"), std::string::npos) << noop.failure;
  // Without the poison it would have passed: what the test guards against.
  EXPECT_TRUE(check_on_oracle(s, code("nothing"), {}, dir / "unpoisoned", stand_in_replay, {}).passed);
  const auto fault = check_on_oracle(s, code("fault"), written, dir / "fault", stand_in_replay, {});
  EXPECT_FALSE(fault.passed);
  EXPECT_EQ(fault.failure, "the replay failed: the replayed kernel: CUDA_ERROR_ILLEGAL_ADDRESS");
}

// The second poison pattern: a kernel whose output depends on what the output held passes the
// first and fails the second.
TEST(Oracle, TheSecondPatternShowsAResultThatDependsOnTheOutputsOldBytes) {
  const auto dir = test::fresh_dir("oracle-patterns");
  const auto s = recomputing_snapshot(dir / "snap");
  const auto written = find_written_bytes(s, code("compute"), dir / "work", stand_in_replay).bytes;
  for (const unsigned char pattern : {kPoisonByte, kSecondPoisonByte}) {
    EXPECT_TRUE(check_on_oracle(s, code("compute"), written, dir / "good", stand_in_replay, {}, pattern).passed) << int(pattern);
  }
  EXPECT_TRUE(check_on_oracle(s, code("over_nan"), written, dir / "first", stand_in_replay, {}, kPoisonByte).passed);
  const auto second = check_on_oracle(s, code("over_nan"), written, dir / "second", stand_in_replay, {}, kSecondPoisonByte);
  EXPECT_FALSE(second.passed);
  EXPECT_NE(second.failure.find("16 of 16 bytes differ"), std::string::npos) << second.failure;
  const auto d = derive_snapshot(s, dir / "derived", code("nothing"), written, kSecondPoisonByte);
  EXPECT_EQ(isolate::read_region(d.dir, d.memory.regions[1]), std::string(16, static_cast<char>(kSecondPoisonByte)));
}

TEST(Oracle, ADerivedSnapshotLinksWhatItKeepsAndLeavesTheOriginalAlone) {
  const auto dir = test::fresh_dir("oracle-derive");
  const auto s = recomputing_snapshot(dir / "snap");
  const auto d = derive_snapshot(s, dir / "derived", code("nothing"), {{kOutput, {{4, 8}}}});
  ASSERT_EQ(d.memory.regions.size(), s.memory.regions.size());
  for (size_t i = 0; i < s.memory.regions.size(); ++i) {
    const auto& r = s.memory.regions[i];
    const auto& derived = d.memory.regions[i];
    if (r.base != kOutput) {
      struct stat a {}, b {};
      ASSERT_EQ(::stat((s.dir / r.file).c_str(), &a), 0);
      ASSERT_EQ(::stat((d.dir / derived.file).c_str(), &b), 0);
      EXPECT_EQ(a.st_ino, b.st_ino) << "a region left alone is linked, not copied";
      continue;
    }
    EXPECT_EQ(derived.encoding, "chunks") << "the poisoned region is written anew";
    const std::string poisoned = isolate::read_region(d.dir, derived);
    EXPECT_EQ(poisoned.substr(0, 4), kResult.substr(0, 4));
    EXPECT_EQ(poisoned.substr(4, 4), std::string(4, static_cast<char>(kPoisonByte)));
    EXPECT_EQ(poisoned.substr(8), kResult.substr(8));
    EXPECT_EQ(isolate::read_region(s.dir, r), kResult);
  }
  EXPECT_EQ(read_file(d.dir / d.dispatch.code_object), code("nothing"));
  EXPECT_NE(read_file(s.dir / s.dispatch.code_object), code("nothing"));
}

}  // namespace
}  // namespace rpl::optimize
