// workflow::run_replay and run_compare in-process, without a GPU: what fails before any replay,
// what a failed replay leaves, and memory images compared.
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/workflow/replay.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

template <typename F>
std::optional<Errc> error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return std::nullopt;
}

TEST(WorkflowReplay, ABadSnapshotFailsBeforeAnyReplayAndMakesNoDumpFolder) {
  const auto dir = fresh_dir("workflow_replay_bad");
  fs::create_directories(dir / "empty");
  workflow::Control control;
  const workflow::ReplayRequest request{"full-vm", dir / "empty", 1, true, dir / "dump", std::nullopt};
  EXPECT_EQ(error_of([&] { workflow::run_replay(request, control); }), Errc::bad_input);
  EXPECT_FALSE(fs::exists(dir / "dump"));
}

// Here the replayer cannot run (no GPU, or no replayer beside the test): whatever the error, a
// dump folder the call made is gone and one the user had is kept.
TEST(WorkflowReplay, AFailedReplayRemovesOnlyTheDumpFolderItMade) {
  const auto dir = fresh_dir("workflow_replay_fail");
  const auto snapshot = write_test_snapshot(dir / "snapshot");
  workflow::Control control;
  workflow::ReplayRequest request{"full-vm", snapshot, 1, true, dir / "dump", 5.0};
  const auto made = error_of([&] { workflow::run_replay(request, control); });
  if (!made) GTEST_SKIP() << "the snapshot replayed here: there is a GPU";
  EXPECT_FALSE(fs::exists(dir / "dump"));
  fs::create_directories(dir / "mine");
  request.dump_dir = dir / "mine";
  EXPECT_TRUE(error_of([&] { workflow::run_replay(request, control); }));
  EXPECT_TRUE(fs::is_directory(dir / "mine"));
}

TEST(WorkflowReplay, ComparesMemoryImagesAndRefusesTolerancesOnBytes) {
  const auto dir = fresh_dir("workflow_compare");
  const auto snapshot = write_test_snapshot(dir / "snapshot");
  workflow::Control control;
  workflow::CompareRequest request{snapshot, snapshot, {}};
  const auto r = workflow::run_compare(request, control);
  EXPECT_TRUE(r.comparison.equal());
  request.options.atol = 0.1;
  EXPECT_EQ(error_of([&] { workflow::run_compare(request, control); }), Errc::bad_input);
  request.options.type = isolate::ElementType::f32;
  EXPECT_TRUE(workflow::run_compare(request, control).comparison.equal());
}

}  // namespace
}  // namespace rpl::test
