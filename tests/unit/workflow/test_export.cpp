// workflow::run_export in-process: a trace's timeline written, and an output that is an input refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/workflow/export.hpp>

#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

struct StageCounter : workflow::Observer {
  int started = 0, finished = 0;
  void on_event(const workflow::Event& e) override {
    started += e.kind == workflow::EventKind::stage_started;
    finished += e.kind == workflow::EventKind::stage_finished;
  }
};

TEST(WorkflowExport, WritesTheTimelineAndCountsWhatItDrew) {
  const auto dir = fresh_dir("workflow_export");
  tools::write_scenario("multistream", 1, dir / "trace.db");
  StageCounter stages;
  workflow::Control control(&stages);
  const auto r = workflow::run_export({{dir / "trace.db"}, dir / "trace.json"}, control);
  EXPECT_EQ(r.counts.processes, 1u);
  EXPECT_GT(r.counts.slices, 0u);
  EXPECT_GT(r.counts.flows, 0u) << "the multistream scenario's dependencies are flows";
  const auto page = nlohmann::json::parse(read_file(dir / "trace.json", std::uintmax_t{64} << 20));
  EXPECT_GE(page["traceEvents"].size(), r.counts.slices);
  EXPECT_EQ(stages.started, 3);
  EXPECT_EQ(stages.finished, 3);
  EXPECT_EQ(workflow::export_document(r)["slices"], r.counts.slices);
}

TEST(WorkflowExport, AnOutputThatIsAnInputIsRefusedAndTheTraceKept) {
  const auto dir = fresh_dir("workflow_export_bad");
  tools::write_scenario("multistream", 1, dir / "trace.db");
  const auto before = read_file(dir / "trace.db", std::uintmax_t{64} << 20);
  workflow::Control control;
  try {
    workflow::run_export({{dir / "trace.db"}, dir / "trace.db"}, control);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find("is one of the traces read"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(dir / "trace.db", std::uintmax_t{64} << 20), before);
}

}  // namespace
}  // namespace rpl::test
