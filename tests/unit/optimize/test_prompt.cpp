// The model's prompt holds the kernel's source, what the tool measured, and the rules.
#include <gtest/gtest.h>

#include <rpl/core/files.hpp>
#include <rpl/optimize/prompt.hpp>

#include "test_support.hpp"

namespace rpl::optimize {
namespace {
using nlohmann::json;

const json kAnalysis = json::parse(R"({
  "classification": {"kernel": "softmax_naive", "time_ms": 0.58, "operational_intensity": 0.31,
    "roofline_position": "memory_bound", "percent_of_roof": 7.5, "critical_path_score": 0.92,
    "bottleneck": "memory_latency_bound", "confidence": 0.7,
    "reasons": ["memory-bound at 7.5 % of the DRAM roof"], "next_steps": ["more loads in flight"]},
  "stalls": {"stalls": {"memory_dependency": 0.71, "barrier": 0.0, "fixed_latency": 0.12},
    "hot_lines": [{"file": "softmax_testbed.cu", "line": 20, "text": "sum += expf(x[c] - m);", "samples": 900, "share": 0.41}]}
})");

TEST(Prompt, TheFactsAreWhatTheProfileMeasured) {
  const auto profile = json::parse(read_file(test::source_dir() / "tests/golden/analyze_example.json"));
  const std::string facts = measured_facts(profile, kAnalysis);
  for (const char* expected :
       {"Time per dispatch: 0.58", "over 20 dispatches, cv 0.001, stable", "Launch: grid 4096 x 1 x 1 work-items, block 256 x 1 x 1",
        "Resources: 31 registers per thread, 0 bytes of shared memory", "Theoretical occupancy: 100 % (limited by warps)",
        "Roofline: memory_bound, at 7.5 % of its roof", "Bottleneck: memory_latency_bound (confidence 0.70); memory-bound at 7.5 %",
        "critical path: 92.0 %", "Stall reasons (share of stalled time): memory_dependency 71 %, fixed_latency 12 %",
        "Hot line 20 (41 % of samples): sum += expf(x[c] - m);"}) {
    EXPECT_NE(facts.find(expected), std::string::npos) << expected << "\nin:\n" << facts;
  }
  // Without analysis.json (no --roofline, no --deep) the profile's own facts remain.
  const std::string bare = measured_facts(profile, json());
  EXPECT_NE(bare.find("Theoretical occupancy"), std::string::npos);
  EXPECT_EQ(bare.find("Bottleneck"), std::string::npos);
}

TEST(Prompt, TheRequestAndTheRepair) {
  KernelDefinition k;
  k.name = "softmax_naive";
  const auto messages = optimization_request(k, "__global__ void softmax_naive(...) {}", "Device: H100\n");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_NE(messages[0].content.find("exactly one fenced code block"), std::string::npos);
  EXPECT_NE(messages[0].content.find("signature identical"), std::string::npos);
  EXPECT_NE(messages[1].content.find("```cuda\n__global__ void softmax_naive(...) {}\n```"), std::string::npos);
  EXPECT_NE(messages[1].content.find("Device: H100"), std::string::npos);
  const auto repair = repair_request(messages, "```cuda\nbroken\n```", "kernel.cu(3): error: expected a \";\"");
  ASSERT_EQ(repair.size(), 4u);
  EXPECT_EQ(repair[2].role, "assistant");
  EXPECT_NE(repair[3].content.find("error: expected a \";\""), std::string::npos);
}

}  // namespace
}  // namespace rpl::optimize
