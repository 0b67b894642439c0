// AMD thread traces and PC-sampling profiles in the viewer format: a real PC-sampling file and a
// hand-made thread-trace folder, read and analyzed; bad folders are bad input.
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/analysis/stalls.hpp>
#include <rpl/backends/att_output.hpp>
#include <rpl/core/error.hpp>

#include "test_support.hpp"

namespace rpl::analysis {
namespace {
namespace fs = std::filesystem;

const fs::path kPcSampling = "tests/fixtures/real/rocprof-compute-viewer/pcsampling";

TEST(ThreadTrace, RealPcSamplingFileOfAGemm) {
  const auto att = backends::read_att_output(test::source_dir() / kPcSampling);
  EXPECT_TRUE(att.pc_sampling);
  EXPECT_FALSE(att.thread_trace);
  EXPECT_EQ(att.gfxip, 9);
  EXPECT_EQ(att.code.size(), 1634u);  // 1635 rows, one the kernel's marker
  auto s = analyze_thread_trace(att, "reference_gemm<4>");
  // 1306 issued and 3384 stalled samples in the file.
  EXPECT_NEAR(*s.stall_fraction, 3384.0 / (1306 + 3384), 1e-12);
  EXPECT_FALSE(s.idle_fraction.has_value());
  EXPECT_GT(s.instruction_mix.at("mfma"), 0);  // v_mfma_f32_16x16x32_fp8_fp8 is MFMA, never VALU
  EXPECT_GT(s.instruction_mix.at("vmem"), 0);
  EXPECT_GT(s.instruction_mix.at("lds"), 0);
  double mix = 0, stalls = 0;
  for (const auto& [k, f] : s.instruction_mix) mix += f;
  for (const auto& [k, f] : s.stalls) stalls += f;
  EXPECT_NEAR(mix, 1, 1e-12);
  EXPECT_NEAR(stalls, 1, 1e-12);
  ASSERT_EQ(s.hot.size(), 10u);
  for (size_t i = 1; i < s.hot.size(); ++i) EXPECT_GE(s.hot[i - 1].stall, s.hot[i].stall);
  int64_t most = 0;
  for (const auto& ins : att.code) most = std::max(most, ins.pc_stalled);
  EXPECT_EQ(s.hot[0].stall, most);
}

// A thread trace of three instructions run by two waves.
fs::path hand_made_trace(const std::string& name, int64_t hits = 2) {
  const auto dir = test::fresh_dir(name);
  nlohmann::json code = {{"version", "3.0.0"},
                         {"header", "ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"},
                         {"code", {{"; k()", 0, 0, "k()", 1, 4096, 0, 0, 0, 0},
                                   {"global_load_dword v1, v[2:3], off", 0, 1, "k.cpp:3", 1, 4096, hits, 800, 100, 100},
                                   {"s_waitcnt vmcnt(0)", 0, 2, "k.cpp:3", 1, 4104, hits, 600, 580, 0},
                                   {"v_fmac_f32_e32 v1, v2, v3", 0, 3, "k.cpp:4", 1, 4108, hits * 2, 100, 20, 100}}}};
  std::ofstream(dir / "code.json") << code.dump();
  nlohmann::json names = {{"gfxip", 9}, {"thread_trace", true}, {"pc_sampling", false},
                          {"wave_filenames", {{"0", {{"0", {{"0", {{"0", {"se0_sm0_sl0_wv0.json", 1000, 1600}},
                                                                   {"1", {"se0_sm0_sl0_wv1.json", 1100, 2000}}}}}}}}}}};
  std::ofstream(dir / "filenames.json") << names.dump();
  std::ofstream(dir / "se0_sm0_sl0_wv0.json") << R"({"name": "SE0", "num_insts": 200, "wave": {}})";
  std::ofstream(dir / "se0_sm0_sl0_wv1.json") << R"({"name": "SE0", "num_insts": 250, "wave": {}})";
  return dir;
}

TEST(ThreadTrace, HandMadeThreadTrace) {
  const auto att = backends::read_att_output(hand_made_trace("att_ok"));
  EXPECT_TRUE(att.thread_trace);
  EXPECT_EQ(att.waves, 2u);
  EXPECT_EQ(att.wave_cycles, 1000);
  EXPECT_EQ(att.wave_instructions, 450);
  auto s = analyze_thread_trace(att, "k()");
  EXPECT_DOUBLE_EQ(*s.ipc, 0.45);
  EXPECT_DOUBLE_EQ(*s.vmem_latency_cycles, 400);  // 800 cycles over 2 executions
  EXPECT_DOUBLE_EQ(*s.stall_fraction, 700.0 / 1700.0);
  EXPECT_DOUBLE_EQ(*s.idle_fraction, 200.0 / 1700.0);
  EXPECT_DOUBLE_EQ(s.stalls.at("memory_dependency"), 580.0 / 700.0);  // s_waitcnt
  EXPECT_DOUBLE_EQ(s.stalls.at("memory_throttle"), 100.0 / 700.0);
  EXPECT_DOUBLE_EQ(s.stalls.at("pipe_busy"), 20.0 / 700.0);
  EXPECT_DOUBLE_EQ(s.instruction_mix.at("valu"), 0.5);
  EXPECT_DOUBLE_EQ(s.instruction_mix.at("vmem"), 0.25);
  EXPECT_DOUBLE_EQ(s.instruction_mix.at("salu"), 0.25);
  EXPECT_EQ(s.hot.front().isa, "s_waitcnt vmcnt(0)");
  EXPECT_EQ(s.hot.front().source, "k.cpp:3");
}

TEST(ThreadTrace, NoWaveOnTheTracedCuSaysWhatToDo) {
  const auto att = backends::read_att_output(hand_made_trace("att_empty", 0));
  try {
    analyze_thread_trace(att, "k()");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::run_failed);
    EXPECT_NE(std::string(e.what()).find("--att-target-cu"), std::string::npos) << e.what();
  }
}

TEST(ThreadTrace, BadFoldersAreBadInput) {
  const auto empty = test::fresh_dir("att_none");
  const auto not_json = test::fresh_dir("att_not_json");
  std::ofstream(not_json / "code.json") << "{";
  const auto bad_row = test::fresh_dir("att_bad_row");
  std::ofstream(bad_row / "code.json") << R"({"code": [["v_add", 0]]})";
  const auto wrong_types = test::fresh_dir("att_types");
  std::ofstream(wrong_types / "code.json") << R"({"code": []})";
  std::ofstream(wrong_types / "filenames.json") << R"({"gfxip": "nine", "wave_filenames": {"0": 7}})";
  for (const auto& dir : {empty, not_json, bad_row}) {
    try {
      backends::read_att_output(dir);
      ADD_FAILURE() << dir << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_input);
      EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
    }
  }
  const auto att = backends::read_att_output(wrong_types);  // odd values are ignored, not trusted
  EXPECT_EQ(att.gfxip, 0);
  EXPECT_EQ(att.waves, 0u);
}

}  // namespace
}  // namespace rpl::analysis
