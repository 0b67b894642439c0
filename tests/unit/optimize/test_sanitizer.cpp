// The sanitizer stage without a GPU: compute-sanitizer's logs as an H100 wrote them for replays of
// the softmax testbed's snapshot (tests/fixtures/sanitizer, scripts/gpu/probe_sanitizer.sh), read
// into reports; a candidate judged against the original's; and the stage skipped with a warning
// where the tool is missing, without one on AMD.
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/optimize/sanitizer.hpp>

#include "test_support.hpp"

namespace rpl::optimize {
namespace {
namespace fs = std::filesystem;

std::string log_of(const std::string& name) { return read_file(test::source_dir() / "tests/fixtures/sanitizer" / (name + ".log")); }

TEST(SanitizerLog, ACleanReplayUnderEachTool) {
  for (const char* tool : {"racecheck", "synccheck", "memcheck"}) {
    const auto r = parse_sanitizer_log(tool, log_of(std::string("original_") + tool));
    EXPECT_TRUE(r.summarized) << tool;
    EXPECT_EQ(r.errors, 0u) << tool;
    EXPECT_TRUE(r.findings.empty()) << tool;
  }
}

TEST(SanitizerLog, AWarpRaceOnSharedMemory) {
  const auto r = parse_sanitizer_log("racecheck", log_of("softmax_shared_race_racecheck"));
  EXPECT_TRUE(r.summarized);
  EXPECT_EQ(r.errors, 2u);  // "2 hazards displayed (0 errors, 2 warnings)"
  ASSERT_EQ(r.findings.size(), 2u);
  const auto& f = r.findings[0];
  EXPECT_EQ(f.kind, "Warning: Race reported between Write access and Read access");
  EXPECT_EQ(f.places, (std::vector<std::string>{"softmax_shared_race.cu:35", "softmax_shared_race.cu:32", "softmax_shared_race.cu:37"}));
  EXPECT_EQ(f.hazards, 7u * 65536 + 49152 + 8u * 65536);
  EXPECT_EQ(f.text, "Warning: Race reported between Write access and Read access (at softmax_shared_race.cu:35, "
                    "softmax_shared_race.cu:32, softmax_shared_race.cu:37) [1032192 hazards]");
  EXPECT_GT(r.hazards, f.hazards);
}

TEST(SanitizerLog, WithoutLineInfoThePlaceIsTheFunctionAndOffset) {
  const auto r = parse_sanitizer_log("racecheck",
                                     "========= Error: Race reported between Write access at k(const float *, int)+0x10\n"
                                     "=========     and Read access at k(const float *, int)+0x20 [4 hazards]\n"
                                     "=========     and Read access at k(const float *, int)+0x30 [4 hazards]\n"
                                     "=========     and Read access at k(const float *, int)+0x40 [4 hazards]\n"
                                     "========= \n"
                                     "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.errors, 1u);
  EXPECT_EQ(r.findings[0].text, "Error: Race reported between Write access and Read access (at k+0x10, k+0x20, k+0x30 and 1 more; "
                                "build with -lineinfo for source lines) [12 hazards]");
}

TEST(SanitizerLog, OutOfBoundsWritesAndAFailedReplay) {
  const auto r = parse_sanitizer_log("memcheck", log_of("softmax_out_of_bounds_memcheck"));
  EXPECT_EQ(r.errors, 1125u);
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(r.findings[0].kind, "Invalid __global__ write of size 4 bytes");
  EXPECT_EQ(r.findings[0].places, std::vector<std::string>{"softmax_out_of_bounds.cu:25"});
  EXPECT_EQ(r.findings[3].kind, "Target application returned an error");
  const auto race = parse_sanitizer_log("racecheck", log_of("softmax_out_of_bounds_racecheck"));
  ASSERT_EQ(race.findings.size(), 1u);
  EXPECT_EQ(race.findings[0].kind, "Target application returned an error");
}

TEST(SanitizerLog, OnlyKindsTheOriginalLacksAreNew) {
  const auto clean = parse_sanitizer_log("memcheck", log_of("original_memcheck"));
  const auto bad = parse_sanitizer_log("memcheck", log_of("softmax_out_of_bounds_memcheck"));
  const auto found = new_findings(clean, bad);
  ASSERT_EQ(found.size(), 2u);  // the three writes are one kind at one place; and the failure
  EXPECT_EQ(found[0].text, "Invalid __global__ write of size 4 bytes (at softmax_out_of_bounds.cu:25)");
  EXPECT_TRUE(new_findings(bad, bad).empty()) << "what the original shows too is not held against a candidate";
  // A log cut short (the tool killed) is a finding of its own.
  const auto cut = parse_sanitizer_log("memcheck", "========= COMPUTE-SANITIZER\n");
  EXPECT_FALSE(cut.summarized);
  ASSERT_EQ(new_findings(clean, cut).size(), 1u);
  EXPECT_NE(new_findings(clean, cut)[0].text.find("did not run to its end"), std::string::npos);
}

// A stand-in for the replayer under each tool: the named logs.
SanitizedReplayer answering(const std::map<std::string, std::string>& logs) {
  return [logs](const fs::path&, const std::string& tool) {
    const auto it = logs.find(tool);
    if (it == logs.end()) fail(Errc::run_failed, "the replayer crashed under {}", tool);
    return log_of(it->second);
  };
}

const std::map<std::string, std::string> kClean = {
    {"racecheck", "original_racecheck"}, {"synccheck", "original_synccheck"}, {"memcheck", "original_memcheck"}};

TEST(SanitizerGate, OpenOnNvidiaAndACandidateHeldAgainstTheOriginal) {
  const auto gate = open_sanitizer_gate("nvidia", fs::path("/usr/local/cuda/bin/compute-sanitizer"), "snap", answering(kClean));
  ASSERT_TRUE(gate.open) << gate.reason;
  EXPECT_FALSE(gate.warning);
  ASSERT_EQ(gate.original.size(), 3u);
  const auto clean = sanitize_candidate(gate, "cand", answering(kClean));
  ASSERT_EQ(clean.size(), 3u);
  for (const auto& p : clean) EXPECT_TRUE(p.new_findings.empty()) << p.tool;
  auto racy = kClean;
  racy["racecheck"] = "softmax_shared_race_racecheck";
  const auto raced = sanitize_candidate(gate, "cand", answering(racy));
  ASSERT_EQ(raced.size(), 1u) << "the tools after the one that found something are not run";
  EXPECT_EQ(raced[0].tool, "racecheck");
  EXPECT_EQ(raced[0].errors, 2u);
  ASSERT_EQ(raced[0].new_findings.size(), 2u);
  auto crashing = kClean;
  crashing.erase("memcheck");
  const auto crashed = sanitize_candidate(gate, "cand", answering(crashing));
  ASSERT_EQ(crashed.size(), 3u);
  EXPECT_EQ(crashed[2].new_findings, std::vector<std::string>{"the replay under memcheck failed: the replayer crashed under memcheck"});
}

TEST(SanitizerGate, SkippedWithAWarningWhereTheToolIsMissingOrFails) {
  auto gate = open_sanitizer_gate("nvidia", std::nullopt, "snap", answering(kClean));
  EXPECT_FALSE(gate.open);
  EXPECT_TRUE(gate.warning);
  EXPECT_NE(gate.reason.find("compute-sanitizer was not found"), std::string::npos) << gate.reason;
  EXPECT_TRUE(sanitize_candidate(gate, "cand", answering(kClean)).empty());
  gate = open_sanitizer_gate("nvidia", fs::path("/cs"), "snap", answering({{"racecheck", "original_racecheck"}}));
  EXPECT_FALSE(gate.open);
  EXPECT_TRUE(gate.warning);
  EXPECT_NE(gate.reason.find("the original's replay under compute-sanitizer failed (the replayer crashed under synccheck)"),
            std::string::npos) << gate.reason;
  gate = open_sanitizer_gate("amd", std::nullopt, "snap", answering(kClean));
  EXPECT_FALSE(gate.open);
  EXPECT_FALSE(gate.warning) << "AMD has no such tool: said, not warned of";
  EXPECT_NE(gate.reason.find("AMD"), std::string::npos);
}

TEST(SanitizerGate, TheToolIsFoundWhereTheEnvironmentSays) {
  const auto dir = test::fresh_dir("sanitizer-found");
  std::ofstream(dir / "compute-sanitizer") << "#!/bin/sh\n";
  setenv("RPL_COMPUTE_SANITIZER", (dir / "compute-sanitizer").c_str(), 1);
  EXPECT_EQ(find_compute_sanitizer(), dir / "compute-sanitizer");
  setenv("RPL_COMPUTE_SANITIZER", (dir / "missing").c_str(), 1);
  EXPECT_EQ(find_compute_sanitizer(), std::nullopt);
  unsetenv("RPL_COMPUTE_SANITIZER");
}

}  // namespace
}  // namespace rpl::optimize
