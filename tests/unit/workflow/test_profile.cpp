// workflow::run_profile in-process, with the stand-in rocprofv3 first in PATH: the folder it
// leaves, the whole-process timing that replaces an earlier traced profile, and what fails before
// anything runs.
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/workflow/profile.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

// The stand-in rocprofv3 first in PATH, playing scenario, for one test.
class StandInRocprof {
 public:
  explicit StandInRocprof(const std::string& scenario) : path_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    setenv("PATH", (fake_rocprof_dir().string() + ":" + path_).c_str(), 1);
    setenv("RPL_FAKE_ROCPROF_SCENARIO", scenario.c_str(), 1);
  }
  ~StandInRocprof() {
    setenv("PATH", path_.c_str(), 1);
    unsetenv("RPL_FAKE_ROCPROF_SCENARIO");
  }

 private:
  std::string path_;
};

workflow::ProfileRequest request_in(const fs::path& out) {
  workflow::ProfileRequest r;
  r.run.command = {"/bin/true"};
  r.run.runs = 2;
  r.run.quiet_app = true;
  r.out_dir = out;
  r.backend = "rocm";
  return r;
}

TEST(WorkflowProfile, TracesAnalyzesAndWritesTheFolder) {
  StandInRocprof rocprof("mi300x");
  const auto dir = fresh_dir("workflow_profile");
  workflow::Control control;
  const auto r = workflow::run_profile(request_in(dir / "out"), control);
  ASSERT_TRUE(r.summary.kernel);
  ASSERT_TRUE(r.analysis);
  EXPECT_TRUE(r.analysis->dag);
  for (const char* doc : {"profile.json", "roofline.json", "dag.json", "analysis.json"}) EXPECT_TRUE(fs::exists(dir / "out" / doc)) << doc;
  EXPECT_TRUE(fs::exists(dir / "out" / ".rocpd_profile"));
  EXPECT_EQ(schema_errors(r.profile.dump(), "profile"), "");

  // Timed whole: the traced profile's analyses go, as they no longer describe it.
  auto whole = request_in(dir / "out");
  whole.no_rocprof = true;
  const auto w = workflow::run_profile(whole, control);
  EXPECT_FALSE(w.analysis);
  EXPECT_FALSE(fs::exists(dir / "out" / "dag.json"));
  EXPECT_TRUE(fs::exists(dir / "out" / "profile.json"));
}

TEST(WorkflowProfile, BadInputFailsBeforeAnythingRuns) {
  StandInRocprof rocprof("mi300x");
  const auto dir = fresh_dir("workflow_profile_bad");
  std::ofstream(dir / "ceilings.json") << "{ nope";
  auto r = request_in(dir / "out");
  r.analyses.ceilings_file = dir / "ceilings.json";
  workflow::Control control;
  auto code = [&] {
    try {
      workflow::run_profile(r, control);
    } catch (const Error& e) {
      return e.code();
    }
    return Errc::internal;
  };
  EXPECT_EQ(code(), Errc::bad_input);
  r.analyses.ceilings_file.clear();
  r.run.command = {"/no/such/program"};
  EXPECT_EQ(code(), Errc::bad_input);
  r.run.command = {"/bin/true"};
  r.counters = true;
  EXPECT_EQ(code(), Errc::bad_input) << "--counters is NVIDIA's";
  EXPECT_FALSE(fs::exists(dir / "out" / ".rocpd_profile")) << "nothing ran";
}

}  // namespace
}  // namespace rpl::test
