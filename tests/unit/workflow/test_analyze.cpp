// workflow::run_analyze in-process: what a folder gets, what stays unwritten, and the one
// profile.json that profile, analyze and optimize all write.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/workflow/analyze.hpp>

#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

struct Stages : workflow::Observer {
  std::vector<std::string> started;
  void on_event(const workflow::Event& e) override {
    if (e.kind == workflow::EventKind::stage_started) started.push_back(e.stage);
  }
};

TEST(WorkflowAnalyze, AFolderGetsEveryDocumentAndTheSummaryAloneSkipsTheFolderAnalyses) {
  const auto dir = fresh_dir("workflow_analyze");
  tools::write_scenario("multistream", 1, dir / "trace.db");
  Stages stages;
  workflow::Control control(&stages);
  const auto r = workflow::run_analyze({{dir / "trace.db"}, std::nullopt, {}, {}, dir / "out"}, control);
  ASSERT_TRUE(r.analysis.summary.kernel);
  EXPECT_TRUE(r.analysis.dag);
  EXPECT_TRUE(r.analysis.bottleneck);
  EXPECT_EQ(stages.started, (std::vector<std::string>{"read", "summary", "roofline", "dag", "bottleneck"}));
  for (const char* doc : {"profile.json", "roofline.json", "dag.json", "analysis.json"}) EXPECT_TRUE(fs::exists(dir / "out" / doc)) << doc;
  const auto written = nlohmann::ordered_json::parse(read_file(dir / "out" / "profile.json", std::uintmax_t{16} << 20));
  EXPECT_EQ(written, r.profile) << "the document returned is the one written";
  EXPECT_EQ(schema_errors(r.profile.dump(), "profile"), "");
  EXPECT_NE(workflow::analysis_text(r.analysis, analysis::NameStyle::short_names).find("critical path"), std::string::npos);

  const auto unwritten = workflow::run_analyze({{dir / "trace.db"}, std::nullopt, {}, {}, {}}, control);
  EXPECT_TRUE(unwritten.analysis.bottleneck) << "without a folder, the same analyses";
  workflow::AnalyzeRequest summary_alone{{dir / "trace.db"}, std::nullopt, {}, {}, {}};
  summary_alone.options.folder_analyses = false;  // what analyze --json asks: profile.json alone
  const auto alone = workflow::run_analyze(summary_alone, control);
  EXPECT_FALSE(alone.analysis.dag) << "no folder analyses asked, none made";
  EXPECT_EQ(alone.profile, r.profile) << "profile.json is the same either way";
  summary_alone.out_dir = dir / "folder";
  EXPECT_TRUE(workflow::run_analyze(summary_alone, control).analysis.dag) << "a folder holds them all";
}

TEST(WorkflowAnalyze, ABadThreadTraceFolderFailsBeforeAnythingIsWritten) {
  const auto dir = fresh_dir("workflow_analyze_bad");
  tools::write_scenario("mi300x", 1, dir / "trace.db");
  fs::create_directories(dir / "att");
  workflow::AnalyzeRequest request{{dir / "trace.db"}, std::nullopt, {}, {}, dir / "out"};
  request.options.thread_trace_dir = dir / "att";
  workflow::Control control;
  try {
    workflow::run_analyze(request, control);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(WorkflowAnalyze, TheKernelRegexChoosesTheSummarysKernel) {
  const auto dir = fresh_dir("workflow_analyze_kernel");
  tools::write_scenario("mi300x", 1, dir / "trace.db");
  workflow::Control control;
  const auto r = workflow::run_analyze({{dir / "trace.db"}, "reduce_rows", {}, {}, {}}, control);
  ASSERT_TRUE(r.analysis.summary.kernel);
  EXPECT_EQ(r.analysis.summary.kernel->name.rfind("reduce_rows", 0), 0u);
}

}  // namespace
}  // namespace rpl::test
