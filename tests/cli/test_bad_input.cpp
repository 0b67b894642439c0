// Bad input: each case gives the documented exit code and one clear line on stderr, nothing on
// stdout, never a crash, and leaves the user's files as they were.
#include <fstream>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

void expect_error(const std::vector<std::string>& args, int code, const std::string& message,
                  const std::vector<std::pair<std::string, std::string>>& env = {}) {
  auto r = run_cli(args, env);
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("rocm-perf: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliBadInput, MissingFile) { expect_error({"analyze", "/nonexistent/t.db"}, 2, "/nonexistent/t.db: no such file"); }

// An autotune.json whose fields are of other types than rocm-perf writes (edited by hand): the
// report names the folder, writes no page and leaves the document as it was.
TEST(CliBadInput, AReportOfAMalformedAutotuneDocument) {
  const auto dir = fresh_dir("bad_autotune");
  const std::string doc = R"({"tool": "rocm-perf autotune", "space": "x", "measured": 3, "failures": [1], "best": {"configuration": 7}})";
  std::ofstream(dir / "autotune.json") << doc;
  expect_error({"report", dir.string()}, 2, dir.string() + ": a JSON document here is not as rocm-perf writes it");
  EXPECT_EQ(read_text(dir / "autotune.json"), doc);
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

// A roofline.json beside profile.json whose kernels are not as rocm-perf writes them: the report's
// kernel table reads it where the folder holds no traces.
TEST(CliBadInput, AReportOfAMalformedRooflineDocument) {
  const auto dir = fresh_dir("bad_roofline");
  const auto out = dir / "out";
  const auto analyzed = run_cli({"analyze", scenario("mi300x", 1, dir).string(), "--out", out.string()});
  ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
  for (const std::string doc : {R"({"kernels": [{"name": "k", "time_ms": "x"}]})", R"({"kernels": [5]})", R"({"kernels": 5})"}) {
    std::ofstream(out / "roofline.json") << doc;
    expect_error({"report", out.string()}, 2, out.string() + ": a JSON document here is not as rocm-perf writes it");
    EXPECT_EQ(read_text(out / "roofline.json"), doc);
    EXPECT_FALSE(fs::exists(out / "report.html"));
  }
}

TEST(CliBadInput, EmptyFile) {
  const auto path = fresh_dir("empty") / "empty.db";
  std::ofstream{path};
  expect_error({"analyze", path.string()}, 2, "empty file");
}

TEST(CliBadInput, NonSqliteFile) {
  const auto path = fresh_dir("text") / "trace.db";
  std::ofstream(path) << "not sqlite";
  expect_error({"analyze", "--json", path.string()}, 2, "not a trace read here: a rocpd or Nsight Systems SQLite database");
}

// Binary traces only their own tools read: the error says how to get a file that is read here.
TEST(CliBadInput, AReportOnlyItsOwnToolReadsSaysWhatToExport) {
  const auto dir = fresh_dir("other_reports");
  std::ofstream(dir / "run.nsys-rep", std::ios::binary) << std::string("\x01\x02binary\0report", 15);
  expect_error({"analyze", (dir / "run.nsys-rep").string()}, 2,
               "an Nsight Systems report, which only nsys reads: export it to SQLite (nsys export --type sqlite --output R.sqlite "
               "run.nsys-rep)");
  std::ofstream(dir / "results.pftrace", std::ios::binary) << std::string("\x0a\x05proto", 7);
  expect_error({"analyze", (dir / "results.pftrace").string()}, 2, "a Perfetto or OTF2 trace, which holds no kernel resources");
}

TEST(CliBadInput, TruncatedDatabase) {
  const auto dir = fresh_dir("trunc");
  const std::string bytes = read_text(scenario("mi300x", 1, dir));
  const auto path = dir / "truncated.db";
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const std::string before = read_text(path);
  expect_error({"analyze", path.string()}, 2, "unreadable rocpd database");
  EXPECT_EQ(read_text(path), before) << "the user's file must not change";
}

TEST(CliBadInput, SqliteWithoutRocpdTables) {
  const auto path = fresh_dir("plain") / "plain.db";
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE).exec("CREATE TABLE t(x);");
  expect_error({"analyze", path.string()}, 2, "no rocpd tables");
}

TEST(CliBadInput, RocpdWithNoDispatchesNamesTheFiles) {
  const auto dir = fresh_dir("nod");
  const auto one = scenario("no-dispatches", 1, dir), two = scenario("no-dispatches", 2, dir);
  expect_error({"analyze", one.string()}, 2, one.string() + ": no kernel dispatches recorded in this trace");
  expect_error({"analyze", one.string(), two.string()}, 2,
               one.string() + ", " + two.string() + ": no kernel dispatches recorded in any of these traces");
}

// An Nsight Systems export made without CUDA tracing (no kernel table): the one line says why.
TEST(CliBadInput, AnNsightSystemsExportWithoutKernelsSaysWhy) {
  const auto path = fresh_dir("nsys_cpu") / "report1.sqlite";
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT)");
  expect_error({"analyze", path.string()}, 2,
               path.string() + ": no kernel dispatches recorded in this trace; " + path.string() +
                   ": an Nsight Systems export without CUDA kernels (was the program profiled with --trace=cuda?)");
}

TEST(CliBadInput, ResourcesNoWaveOrBlockCanBeGiven) {
  expect_error({"occupancy", "--arch", "gfx942", "--block", "256", "--vgpr", "600"}, 2,
               "600 VGPRs per work-item: gfx942 can give a wave at most 256");
  expect_error({"occupancy", "--arch", "gfx90a", "--block", "256", "--agpr", "300"}, 2,
               "300 AGPRs per work-item: gfx90a can give a wave at most 256");
  expect_error({"occupancy", "--arch", "gfx1030", "--block", "256", "--agpr", "8"}, 2, "8 AGPRs per work-item: gfx1030 has no AGPRs");
  expect_error({"occupancy", "--arch", "gfx942", "--block", "256", "--sgpr", "200"}, 2,
               "200 SGPRs per wave: gfx942 can give a wave at most 112");
  expect_error({"occupancy", "--arch", "gfx942", "--block", "256", "--lds", "70000"}, 2,
               "70000 bytes of LDS per workgroup: gfx942 can give a workgroup at most 65536");
  expect_error({"occupancy", "--arch", "sm_90", "--block", "256", "--regs", "300"}, 2,
               "300 registers per thread: sm_90 can give a thread at most 255");
  expect_error({"occupancy", "--arch", "sm_90", "--block", "256", "--smem", "200000", "--dyn-smem", "40000"}, 2,
               "240000 bytes of shared memory per block: sm_90 can give a block at most 232448");
  // The largest allocatable values are still accepted.
  EXPECT_EQ(run_cli({"occupancy", "--arch", "gfx950", "--block", "256", "--lds", "163840"}).exit_code, 0);
  EXPECT_EQ(run_cli({"occupancy", "--arch", "sm_90", "--block", "256", "--regs", "255"}).exit_code, 0);
}

// A fatbin of nvcc 13 with sm_100f code (kept as a fuzzing seed): family variants by name, filters.
TEST(CliBadInput, InspectFiltersThatSelectNothing) {
  const auto fatbin = (source_dir() / "tests/fuzz/corpus/cuda_binary/sm_100f.fatbin").string();
  auto r = run_cli({"inspect", "--json", "--kernel", "^k\\(", fatbin});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["kernels"].size(), 1u);
  EXPECT_EQ(doc["kernels"][0]["arch"], "sm_100f");
  EXPECT_EQ(run_cli({"inspect", "--arch", "sm_100", fatbin}).exit_code, 0) << "sm_100 takes its f variant";
  expect_error({"inspect", "--kernel", "no_such", fatbin}, 2, "sm_100f.fatbin: --kernel 'no_such' matches none of its kernels");
  expect_error({"inspect", "--arch", "sm_100a", fatbin}, 2, "sm_100f.fatbin: no code for sm_100a (it has code for: sm_100f)");
  expect_error({"inspect", "--kernel", "k(", fatbin}, 2, "--kernel 'k(': not a valid regular expression");
}

TEST(CliBadInput, InspectRefusesWhatIsNotARegularFile) {
  const auto dir = fresh_dir("special");
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = run_cli({"inspect", fifo.string()}, {}, 20);
  EXPECT_EQ(r.exit_code, 2) << "a FIFO must be refused, not read until it closes";
  EXPECT_NE(r.err.find(fifo.string() + ": not a regular file"), std::string::npos) << r.err;
  expect_error({"inspect", "/dev/zero"}, 2, "/dev/zero: not a regular file");
  expect_error({"analyze", "/dev/zero"}, 2, "/dev/zero");
}

TEST(CliBadInput, OnlyHelperKernelsFallBackWithAWarning) {
  auto r = run_cli({"analyze", scenario("helpers-only", 1, fresh_dir("helpers")).string()});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("every kernel in the trace is a runtime helper"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("__amd_rocclr_fillBufferAligned"), std::string::npos);
}

TEST(CliBadInput, UnknownArchitecture) {
  expect_error({"occupancy", "--arch", "gfx9999", "--block", "256"}, 2, "unknown architecture 'gfx9999' (known: gfx1030");
  const auto dir = fresh_dir("arch");
  std::ofstream(dir / "x") << "x";
  expect_error({"inspect", "--arch", "sm_99", (dir / "x").string()}, 2, "unknown architecture 'sm_99'");
}

TEST(CliBadInput, KernelRegexThatMatchesNothingOrDoesNotCompile) {
  const auto db = scenario("mi300x", 1, fresh_dir("regex")).string();
  expect_error({"analyze", "--kernel", "no_such_kernel", db}, 2, "--kernel 'no_such_kernel' matches none of the 4 kernels");
  expect_error({"analyze", "--kernel", "matmul(", db}, 2, "--kernel 'matmul(': not a valid regular expression");
}

TEST(CliBadInput, NegativeOrAbsurdBlockAndRuns) {
  expect_error({"occupancy", "--arch", "gfx942", "--block", "-4"}, 2, "block size -4 is outside 1..1024");
  expect_error({"occupancy", "--arch", "gfx942", "--block", "100000"}, 2, "block size 100000 is outside 1..1024");
  expect_error({"occupancy", "--arch", "sm_90", "--block", "0"}, 2, "block size 0 is outside 1..1024");
  expect_error({"occupancy", "--arch", "gfx942", "--block", "lots"}, 2, "--block");
  expect_error({"profile", "--runs", "0", "--", "/bin/true"}, 2, "--runs");
  expect_error({"profile", "--runs", "-3", "--", "/bin/true"}, 2, "--runs");
  expect_error({"profile", "--runs", "99999999", "--", "/bin/true"}, 2, "--runs");
  expect_error({"profile", "--timeout", "-1", "--", "/bin/true"}, 2, "--timeout");
  expect_error({"inspect", "--block", "2048", "/bin/true"}, 2, "--block 2048 is outside 1..1024");
}

TEST(CliBadInput, OptionsOfTheOtherVendor) {
  expect_error({"occupancy", "--arch", "sm_90", "--block", "256", "--vgpr", "64"}, 2, "--vgpr does not apply to sm_90");
  expect_error({"occupancy", "--arch", "gfx942", "--block", "256", "--regs", "64"}, 2, "--regs does not apply to gfx942");
}

TEST(CliBadInput, ProgramThatDoesNotExist) {
  expect_error({"profile", "--no-rocprof", "--", "/nonexistent/app"}, 2, "/nonexistent/app: no such program");
  expect_error({"profile", "--", "rpl-no-such-app"}, 2, "rpl-no-such-app: no such program",
               {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}});
}

TEST(CliBadInput, ProgramThatDoesNotExistOnTheCudaBackend) {
  expect_error({"profile", "--backend", "cuda", "--", "/nonexistent/cuda_app"}, 2, "/nonexistent/cuda_app: no such program");
}

TEST(CliBadInput, ProfileWithoutAProgram) {
  expect_error({"profile", "--runs", "1"}, 2, "no program to run");
}

TEST(CliBadInput, UsageErrors) {
  expect_error({}, 2, "subcommand");
  expect_error({"frobnicate"}, 2, "frobnicate");
  expect_error({"analyze"}, 2, "databases");
  expect_error({"occupancy", "--block", "64"}, 2, "--arch");
  expect_error({"analyze", "--no-such-flag", "x.db"}, 2, "--no-such-flag");
  expect_error({"analyze", "x.db", "--", "/bin/true"}, 2, "only accepted by 'profile'");
}

TEST(CliBadInput, InspectNonCodeObjects) {
  const auto dir = fresh_dir("inspect");
  std::ofstream(dir / "notes.txt") << "plain text";
  expect_error({"inspect", (dir / "notes.txt").string()}, 2, "not a GPU binary");
  expect_error({"inspect", "/bin/true"}, 2, "no GPU code");
  expect_error({"inspect", (dir / "missing.hsaco").string()}, 2, "no such file");
  expect_error({"inspect", dir.string()}, 2, "is a directory");
}

TEST(CliBadInput, InspectBrokenCudaBinary) {
  const auto dir = fresh_dir("inspect-cuda");
  // A fatbin header that claims far more than the file holds, and a cubin cut short.
  std::ofstream(dir / "claims.fatbin", std::ios::binary)
      << std::string("\x50\xed\x55\xba\x01\x00\x10\x00\xff\xff\xff\x00\x00\x00\x00\x00", 16) << std::string(64, '\0');
  const std::string before = read_text(dir / "claims.fatbin");
  expect_error({"inspect", (dir / "claims.fatbin").string()}, 2, "claims.fatbin: fatbin 0 extends past its end");
  EXPECT_EQ(read_text(dir / "claims.fatbin"), before);
  std::string cubin = std::string("\x7f" "ELF\x02\x01\x01\x41", 8) + std::string(10, '\0');
  cubin += std::string("\xbe\x00", 2) + std::string(44, '\0');  // e_machine EM_CUDA, nothing else
  std::ofstream(dir / "short.cubin", std::ios::binary) << cubin;
  expect_error({"inspect", (dir / "short.cubin").string()}, 2, "short.cubin: CUDA ELF image with no sections");
}

TEST(CliBadInput, HugeHostileDatabaseIsRejectedWithoutACrash) {
  // A dispatch table with absurd values: negative sizes, end before start, a 1 MiB kernel name.
  const auto path = fresh_dir("hostile") / "hostile.db";
  {
    SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE rocpd_kernel_dispatch_h (id INTEGER PRIMARY KEY, kernel_id INTEGER, agent_id INTEGER, start INTEGER,"
            " end INTEGER, workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER,"
            " group_segment_size INTEGER);"
            "CREATE TABLE rocpd_info_kernel_symbol_h (id INTEGER PRIMARY KEY, kernel_name TEXT, arch_vgpr_count INTEGER);"
            "CREATE TABLE rocpd_info_agent_h (id INTEGER PRIMARY KEY, type TEXT, name TEXT, extdata TEXT);"
            "INSERT INTO rocpd_info_agent_h VALUES (1, 'GPU', 'gfx942', '{not json');"
            "INSERT INTO rocpd_info_kernel_symbol_h VALUES (1, printf('%.*c', 1048576, 'k'), -7);"
            "INSERT INTO rocpd_kernel_dispatch_h VALUES (1, 1, 1, 500, 100, 4000000, -1, 0, -5);");
  }
  expect_error({"analyze", "--json", path.string()}, 2, "has a negative register or segment size; the database is corrupt");
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE).exec("UPDATE rocpd_info_kernel_symbol_h SET arch_vgpr_count = 7;");
  expect_error({"analyze", "--json", path.string()}, 2, "dispatch 1 has an invalid workgroup_size_x of 4000000");
}

}  // namespace
}  // namespace rpl::test
