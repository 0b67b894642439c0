// The one place trace inputs are recognised (workflow/trace_inputs.hpp): a database is itself, a
// folder that profile wrote is its runs, whatever the names; anything else is refused in one line.
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/workflow/analyze.hpp>
#include <rpl/workflow/trace_inputs.hpp>

#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

TEST(WorkflowTraceInputs, AProfileFolderStandsForItsRunsInOrder) {
  const auto dir = fresh_dir("trace_inputs_folder");
  fs::create_directories(dir / "profiled" / ".rocpd_profile");
  for (int run : {2, 1}) tools::write_scenario("mi300x", run, dir / "profiled" / ".rocpd_profile" / ("run" + std::to_string(run) + "_results.db"));
  write_output_file(dir / "profiled" / ".rocpd_profile" / "run1.log", "the program's output\n");
  tools::write_scenario("multistream", 1, dir / "named_anything.trace");
  const auto files = workflow::trace_files({dir / "profiled", dir / "named_anything.trace"});
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].filename(), "run1_results.db");
  EXPECT_EQ(files[1].filename(), "run2_results.db");
  EXPECT_EQ(files[2].filename(), "named_anything.trace") << "a database is one by its content, not its name";
  // analyze reads the folder as it reads its databases.
  workflow::Control control;
  const auto from_folder = workflow::run_analyze({{dir / "profiled"}, std::nullopt, {}, {}}, control);
  const auto from_files = workflow::run_analyze({{files[0], files[1]}, std::nullopt, {}, {}}, control);
  EXPECT_EQ(from_folder.profile, from_files.profile);
}

TEST(WorkflowTraceInputs, AFolderWithoutATraceOrAFileOfAnotherKindIsRefused) {
  const auto dir = fresh_dir("trace_inputs_bad");
  fs::create_directories(dir / "empty");
  std::string message;
  EXPECT_EQ(error_code_of([&] { workflow::trace_files({dir / "empty"}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("a folder with no trace in it"), std::string::npos) << message;
  write_output_file(dir / "results.csv", "Kernel_Name,Start_Timestamp\n");
  EXPECT_EQ(error_code_of([&] { workflow::read_trace_inputs({dir / "results.csv"}); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("not a SQLite database"), std::string::npos) << message;
}

}  // namespace
}  // namespace rpl::test
