// Every command's output paths through the one helper (rpl/core/output_file.hpp): links followed,
// devices and FIFOs written in place, "-" for stdout, folders and unwritable places refused with
// exit 2 before any work, write errors exit 1; an interrupted profile leaves no staging folder.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <future>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

void expect_error(const CliResult& r, int code, const std::string& message) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in: " << r.err;
}

bool is_char_device(const char* path) {
  struct stat st {};
  return ::lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

fs::path trace_db(const fs::path& dir) { return database_from_sql("rocpd_v3_hip_api.sql", dir); }

constexpr auto kReadableByAll = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
constexpr auto kOpenToAll = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                            fs::perms::others_exec;

// A folder and a trace in it that the unprivileged user of run_cli_unprivileged can read.
struct SharedFolder {
  TempDir dir{"rpl-shared-"};
  fs::path db;
  SharedFolder() {
    fs::permissions(dir.path(), kOpenToAll);
    db = trace_db(dir.path());
    fs::permissions(db, kReadableByAll);
  }
};

TEST(CliOutputPaths, ExportFollowsLinksAndKeepsThem) {
  const auto dir = fresh_dir("out-export-links");
  const auto db = trace_db(dir);
  fs::create_symlink("target.json", dir / "link.json");
  ASSERT_EQ(run_cli({"export", db.string(), "-o", (dir / "link.json").string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_NO_THROW(json::parse(read_text(dir / "target.json")));
  // A second export through the same link replaces the target, not the link.
  ASSERT_EQ(run_cli({"export", db.string(), "-o", (dir / "link.json").string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
}

TEST(CliOutputPaths, ExportToAFifoReachesItsReader) {
  const auto dir = fresh_dir("out-export-fifo");
  const auto db = trace_db(dir);
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return read_text(fifo); });
  auto r = run_cli({"export", db.string(), "-o", fifo.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NO_THROW(json::parse(reader.get()));
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(CliOutputPaths, DevicesAreWrittenNeverReplaced) {
  SharedFolder shared;
  // Unprivileged, so that a regression could not replace a device of the machine running the tests.
  EXPECT_EQ(run_cli_unprivileged({"export", shared.db.string(), "-o", "/dev/null"}).exit_code, 0);
  EXPECT_TRUE(is_char_device("/dev/null"));
  expect_error(run_cli_unprivileged({"export", shared.db.string(), "-o", "/dev/full"}), 1,
               "/dev/full: cannot write: No space left on device");
  EXPECT_TRUE(is_char_device("/dev/full"));
}

TEST(CliOutputPaths, DashIsStdoutAndTheSummaryMovesToStderr) {
  const auto dir = fresh_dir("out-dash");
  const auto db = trace_db(dir);
  auto r = run_cli({"export", db.string(), "-o", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NO_THROW(json::parse(r.out)) << r.out.substr(0, 200);
  EXPECT_NE(r.err.find("wrote -: 1 process, "), std::string::npos) << r.err;
  auto via_dev = run_cli({"export", db.string(), "-o", "/dev/stdout"});
  ASSERT_EQ(via_dev.exit_code, 0) << via_dev.err;
  EXPECT_EQ(via_dev.out, r.out);
  expect_error(run_cli({"export", "--json", db.string(), "-o", "-"}), 2, "-o - and --json both write to stdout");

  ASSERT_EQ(run_cli({"analyze", "--out", (dir / "folder").string(), scenario("mi300x", 1, dir).string()}).exit_code, 0);
  auto page = run_cli({"report", (dir / "folder").string(), "-o", "-"});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_EQ(page.out.rfind("<!DOCTYPE html>", 0), 0u) << page.out.substr(0, 100);
  EXPECT_EQ(page.err, "wrote -\n");
  EXPECT_FALSE(fs::exists(dir / "folder" / "report.html"));
}

TEST(CliOutputPaths, FoldersAndMissingFoldersAreBadUsage) {
  const auto dir = fresh_dir("out-folders");
  const auto db = trace_db(dir);
  ASSERT_EQ(run_cli({"analyze", "--out", (dir / "folder").string(), db.string()}).exit_code, 0);
  const std::string profile = read_text(dir / "folder" / "profile.json");
  expect_error(run_cli({"report", (dir / "folder").string(), "-o", dir.string()}), 2, "is a folder; give the output file's name");
  expect_error(run_cli({"report", (dir / "folder").string(), "-o", (dir / "no/such/r.html").string()}), 2, "no such folder");
  // --out naming a file: refused, and the file is left as it was.
  expect_error(run_cli({"analyze", "--out", (dir / "folder" / "profile.json").string(), db.string()}), 2,
               "exists and is not a folder");
  EXPECT_EQ(read_text(dir / "folder" / "profile.json"), profile);
  // A link to a folder is an output folder.
  fs::create_symlink("folder", dir / "to-folder");
  EXPECT_EQ(run_cli({"analyze", "--out", (dir / "to-folder").string(), db.string()}).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "to-folder"));
  // replay --dump-outputs naming a file: refused before any GPU is looked for.
  const auto snapshot = write_test_snapshot(dir / "snap");
  expect_error(run_cli({"replay", "full-vm", "--capture-dir", snapshot.string(), "--dump-outputs", db.string()}), 2,
               "exists and is not a folder");
}

TEST(CliOutputPaths, AutotuneCsvThroughALinkAndToStdout) {
  const auto dir = fresh_dir("out-csv");
  // A recorded tuning run (--replay) measures nothing: only the outputs are under test.
  std::ofstream(dir / "space.json") << R"({"parameters": {"A": [1, 2, 4]}})";
  std::ofstream(dir / "recorded.csv") << "A,failure,value,cv,samples\n1,none,3,0,5\n2,none,2,0,5\n4,none,1,0,5\n";
  const std::vector<std::string> base{"autotune", "--space", (dir / "space.json").string(), "--cmd-template", "prog {A}",
                                      "--replay", (dir / "recorded.csv").string(), "--out", (dir / "out").string(),
                                      "--budget", "3"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  fs::create_symlink("measured.csv", dir / "link.csv");
  auto r = run_cli(with({"--csv", (dir / "link.csv").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  const std::string csv = read_text(dir / "measured.csv");
  EXPECT_EQ(count_lines(csv), 4) << csv;
  auto dash = run_cli(with({"--csv", "-"}));
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  EXPECT_EQ(dash.out, csv);  // the CSV alone on stdout; the summary went to stderr
  EXPECT_NE(dash.err.find("best"), std::string::npos) << dash.err;
  expect_error(run_cli(with({"--csv", "-", "--json"})), 2, "--csv - and --json or --quiet all write to stdout");
  expect_error(run_cli(with({"--csv", dir.string()})), 2, "is a folder");
}

// As root every folder is writable, so the test runs the tool as nobody where it runs as root.
TEST(CliOutputPaths, ReadOnlyFolderIsRefusedAndLeftEmpty) {
  SharedFolder shared;
  const auto& db = shared.db;
  const auto locked = shared.dir.path() / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  auto r = run_cli_unprivileged({"export", db.string(), "-o", (locked / "t.json").string()});
  expect_error(r, 2, "cannot create a file in " + locked.string() + ": Permission denied");
  auto folder = run_cli_unprivileged({"analyze", "--out", (locked / "out").string(), db.string()});
  expect_error(folder, 2, "cannot create the output folder");
  EXPECT_TRUE(fs::is_empty(locked));
}

// Ctrl-C during a profile: the program's process group is stopped, the staging folder removed, and
// the earlier profile's traces left exactly as they were.
TEST(CliOutputPaths, InterruptedProfileLeavesTheEarlierOneAndNoStaging) {
  const auto dir = fresh_dir("out-interrupted");
  const std::vector<std::pair<std::string, std::string>> env = {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}};
  const auto out = dir / "out";
  ASSERT_EQ(run_cli({"profile", "--runs", "1", "--out", out.string(), "--", "/bin/true"}, env).exit_code, 0);
  auto names = [](const fs::path& folder) {
    std::set<std::string> found;
    for (const auto& e : fs::directory_iterator(folder)) found.insert(e.path().filename().string());
    return found;
  };
  const auto before = names(out / ".rocpd_profile");
  const auto pid_file = dir / "app.pid";
  const int pid = start_cli({"profile", "--runs", "2", "--out", out.string(), "--", "/bin/sh", "-c",
                             "echo $$ > \"$0.tmp\"; mv \"$0.tmp\" \"$0\"; exec sleep 60", pid_file.string()},
                            dir / "stderr", env);
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 500 && !fs::exists(pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(pid_file));
  ::kill(pid, SIGINT);
  EXPECT_EQ(wait_cli(pid), 1);
  const std::string err = read_text(dir / "stderr");
  EXPECT_NE(err.find("interrupted during run 1 of 2; " + (out / ".rocpd_profile").string() + " is as it was before"),
            std::string::npos)
      << err;
  int app = 0;
  std::ifstream(pid_file) >> app;
  ASSERT_GT(app, 0);
  EXPECT_TRUE(process_gone(app)) << "the profiled program survived Ctrl-C";
  EXPECT_FALSE(fs::exists(out / ".rocpd_profile.new"));
  EXPECT_EQ(names(out / ".rocpd_profile"), before);
}

}  // namespace
}  // namespace rpl::test
