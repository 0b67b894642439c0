// workflow::run_report in-process: which page a folder gets, and what stops it.
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/workflow/report.hpp>

#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

Errc error_of(const workflow::ReportRequest& request) {
  workflow::Control control;
  try {
    workflow::run_report(request, control);
  } catch (const Error& e) {
    return e.code();
  }
  return Errc::internal;  // no error where one was expected
}

TEST(WorkflowReport, AProfileFolderGetsItsKernelsAndTimeline) {
  const auto dir = fresh_dir("workflow_report");
  fs::create_directories(dir / ".rocpd_profile");
  tools::write_scenario("mi300x", 1, dir / ".rocpd_profile" / "run1_1.db");
  std::ofstream(dir / "profile.json") << R"({"kernel": null})";
  workflow::Control control;
  const auto r = workflow::run_report({dir, dir / "report.html", {}, {}}, control);
  EXPECT_EQ(r.page, "profile");
  const auto page = read_file(dir / "report.html", std::uintmax_t{64} << 20);
  EXPECT_NE(page.find("softmax_kernel"), std::string::npos);
  EXPECT_NE(page.find("run1_1.db"), std::string::npos) << "the timeline names its database";
}

TEST(WorkflowReport, AnAutotuneFolderGetsTheSearchsPage) {
  const auto dir = fresh_dir("workflow_report_tune");
  std::ofstream(dir / "autotune.json") << R"({"schema_version": "1.0", "measured": [], "curve": []})";
  workflow::Control control;
  EXPECT_EQ(workflow::run_report({dir, dir / "report.html", {}, {}}, control).page, "autotune");
}

// The model strategy whose quadratic could not be fitted (fewer than 3 configurations succeeded)
// says so, rather than an R² of 0.
TEST(WorkflowReport, AnAutotuneModelNotFittedSaysSo) {
  const auto dir = fresh_dir("workflow_report_unfitted");
  std::ofstream(dir / "autotune.json") << R"({"schema_version": "1.0", "measured": {"total": 2}, "curve": [],
    "model": {"kind": "quadratic_ridge_log", "fitted": false, "observations": 2, "r2": 0, "cv_r2": 0}})";
  workflow::Control control;
  ASSERT_EQ(workflow::run_report({dir, dir / "report.html", {}, {}}, control).page, "autotune");
  const auto page = read_file(dir / "report.html", std::uintmax_t{64} << 20);
  EXPECT_NE(page.find("id=\"autotune-model\">not fitted<"), std::string::npos);
  EXPECT_EQ(page.find("autotune-centre"), std::string::npos);
}

TEST(WorkflowReport, AFolderOfNoCommandIsBadInputAndNoChartJsIsAMissingTool) {
  const auto dir = fresh_dir("workflow_report_bad");
  EXPECT_EQ(error_of({dir, dir / "report.html", {}, {}}), Errc::bad_input);
  EXPECT_EQ(error_of({dir / "missing", dir / "report.html", {}, {}}), Errc::bad_input);
  EXPECT_FALSE(fs::exists(dir / "report.html"));
  std::ofstream(dir / "profile.json") << R"({"kernel": null})";
  EXPECT_EQ(error_of({dir, dir / "report.html", {}, dir / "no-chart.js"}), Errc::missing_tool);
  EXPECT_FALSE(fs::exists(dir / "report.html")) << "nothing is left half written";
}

}  // namespace
}  // namespace rpl::test
