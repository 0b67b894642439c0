// profile's NVIDIA counter pass against a stand-in ncu that lacks some metrics: what it lacks is
// said once each, in the warnings profile.json carries, with what it costs.
#include <gtest/gtest.h>

#include "counter_passes.hpp"
#include "cuda_trace_data.hpp"
#include "test_support.hpp"

namespace rpl::workflow {
namespace {

TEST(CounterPasses, CountersThisGpuLacksAreWarnedOfOnceEach) {
  capture::CudaTraceData d;
  d.pid = 4242;
  d.hostname = "host";
  capture::CudaDeviceInfo dev;
  dev.cc_major = 8;
  d.devices.push_back(dev);
  d.names = {"_Z4fillPf"};
  capture::CudaKernelRecord k;
  k.start = 1000;
  k.end = 3048;
  d.kernels.push_back(k);
  const auto db = test::fresh_dir("counter_passes") / "4242_results.db";
  capture::write_cuda_trace(db, d);
  test::PathPrepended fake(test::source_dir() / "tests/fixtures/fake_ncu_some_metrics");
  backends::RunOptions run;
  run.command = {"/bin/true"};
  CounterPassOptions options;
  options.roofline = true;
  options.deep = true;  // the HFMA2.MMA moves' count is in both sets
  std::vector<std::string> warnings;
  run_counter_passes("cuda", run, {db}, options, warnings);
  const std::string moves = "sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum";
  size_t named = 0;
  for (const auto& w : warnings) {
    for (size_t at = w.find(moves); at != std::string::npos; at = w.find(moves, at + 1)) ++named;
  }
  EXPECT_EQ(named, 1u) << ::testing::PrintToString(warnings);
  ASSERT_EQ(warnings.size(), 2u) << ::testing::PrintToString(warnings);
  EXPECT_NE(warnings[0].find("lts__t_bytes.sum"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("stay null"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("HFMA2.MMA register moves as FP16 arithmetic"), std::string::npos) << warnings[1];
}

}  // namespace
}  // namespace rpl::workflow
