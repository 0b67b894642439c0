// workflow::run_isolate in-process, its capture replaced by a double that fills the snapshot folder
// as the capture library would: the transaction around it (the snapshot moved into place only when
// complete; the earlier one kept on every failure; a folder that is not a snapshot never replaced).
#include <fstream>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/isolate/capture_summary.hpp>
#include <rpl/workflow/isolate.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

// Answers as the capture library does: a snapshot and its status, or a status alone.
struct CaptureDouble {
  isolate::CaptureStatus status;
  int calls = 0;
  backends::CaptureRun operator()(const std::string& vendor, const backends::CaptureRequest& request) {
    ++calls;
    EXPECT_EQ(vendor, "nvidia");
    if (status.captured) write_test_snapshot(request.snapshot_dir);
    backends::CaptureRun run;
    run.process.exit_status = 0;
    run.status_json = isolate::format_capture_status(status);
    return run;
  }
};

isolate::CaptureStatus captured() {
  isolate::CaptureStatus s;
  s.captured = true;
  s.kernel = "_Z5scalePfPKfi";
  s.regions = 2;
  s.bytes = 24;
  return s;
}

workflow::IsolateRequest request_for(const fs::path& out, CaptureDouble& capture) {
  workflow::IsolateRequest r;
  r.program = {"/bin/true"};
  r.kernel_regex = "scale";
  r.out = out;
  r.backend = "cuda";
  r.capture = [&capture](const std::string& vendor, const backends::CaptureRequest& request) { return capture(vendor, request); };
  return r;
}

std::optional<Errc> error_of(const workflow::IsolateRequest& request) {
  workflow::Control control;
  try {
    workflow::run_isolate(request, control);
  } catch (const Error& e) {
    return e.code();
  }
  return std::nullopt;
}

TEST(WorkflowIsolate, ACompleteCaptureReplacesTheEarlierSnapshot) {
  const auto dir = fresh_dir("workflow_isolate");
  CaptureDouble capture{captured()};
  workflow::Control control;
  auto facts = workflow::run_isolate(request_for(dir / "snap", capture), control);
  EXPECT_EQ(capture.calls, 1);
  EXPECT_TRUE(fs::exists(dir / "snap" / "dispatch.json"));
  EXPECT_TRUE(fs::exists(dir / "snap" / "isolate.json"));
  EXPECT_EQ(facts.snapshot_dir, (dir / "snap").string());
  EXPECT_GT(facts.snapshot_bytes, 0u);
  std::ofstream(dir / "snap" / "stale") << "from the earlier capture";
  workflow::run_isolate(request_for(dir / "snap", capture), control);
  EXPECT_FALSE(fs::exists(dir / "snap" / "stale")) << "the earlier snapshot is replaced whole";
  EXPECT_FALSE(fs::exists(dir / ".snap.capturing"));
  EXPECT_FALSE(fs::exists(dir / ".snap.previous"));
}

TEST(WorkflowIsolate, AFailedOrEmptyCaptureKeepsTheEarlierSnapshot) {
  const auto dir = fresh_dir("workflow_isolate_fail");
  CaptureDouble capture{captured()};
  workflow::Control control;
  workflow::run_isolate(request_for(dir / "snap", capture), control);
  const auto before = read_file(dir / "snap" / "isolate.json", std::uintmax_t{1} << 20);

  capture.status = {};
  capture.status.error = "cuMemcpy failed";
  EXPECT_EQ(error_of(request_for(dir / "snap", capture)), Errc::run_failed);
  capture.status.error.clear();
  capture.status.launches = {{"_Z5otherv", 3}};
  EXPECT_EQ(error_of(request_for(dir / "snap", capture)), Errc::bad_input) << "nothing captured";
  EXPECT_EQ(read_file(dir / "snap" / "isolate.json", std::uintmax_t{1} << 20), before);
  EXPECT_FALSE(fs::exists(dir / ".snap.capturing")) << "a failed capture's folder is removed";
}

TEST(WorkflowIsolate, AFolderThatIsNotASnapshotIsNeverReplacedAndNothingRuns) {
  const auto dir = fresh_dir("workflow_isolate_mine");
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "notes.txt") << "the user's";
  CaptureDouble capture{captured()};
  EXPECT_EQ(error_of(request_for(dir / "mine", capture)), Errc::bad_input);
  EXPECT_EQ(capture.calls, 0);
  EXPECT_EQ(read_file(dir / "mine" / "notes.txt", 100), "the user's");
}

}  // namespace
}  // namespace rpl::test
