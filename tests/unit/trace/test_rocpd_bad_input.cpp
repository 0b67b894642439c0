// Bad databases give Error(bad_input) with the file named, never a crash.
#include <fstream>

#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"

namespace rpl::trace {
namespace {
namespace fs = std::filesystem;

// The message of the bad_input error reading path raises.
std::string read_error(const fs::path& path) {
  try {
    read_rocpd({path});
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for " << path;
  return "";
}

TEST(RocpdBadInput, MissingFile) { EXPECT_NE(read_error("/nonexistent/trace.db").find("no such file"), std::string::npos); }

TEST(RocpdBadInput, EmptyFile) {
  const auto path = test::fresh_dir("empty") / "empty.db";
  std::ofstream{path};
  EXPECT_NE(read_error(path).find("empty file"), std::string::npos);
}

TEST(RocpdBadInput, Directory) {
  EXPECT_NE(read_error(test::fresh_dir("folder")).find("is a directory"), std::string::npos);
}

TEST(RocpdBadInput, TextFileIsNotSqlite) {
  const auto path = test::fresh_dir("text") / "notes.db";
  std::ofstream(path) << "kernel,duration\nfoo,1\n";
  EXPECT_NE(read_error(path).find("not a SQLite database"), std::string::npos);
}

TEST(RocpdBadInput, TruncatedDatabase) {
  const auto dir = test::fresh_dir("truncated");
  const auto good = test::scenario("mi300x", 1, dir);
  const auto path = dir / "truncated.db";
  const std::string bytes = test::read_text(good);
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  EXPECT_NE(read_error(path).find("unreadable rocpd database"), std::string::npos);
}

TEST(RocpdBadInput, SqliteWithoutRocpdTables) {
  const auto path = test::fresh_dir("plain") / "plain.db";
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE).exec("CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  EXPECT_NE(read_error(path).find("no rocpd tables"), std::string::npos);
}

TEST(RocpdBadInput, DispatchTableWithoutTimestamps) {
  const auto path = test::fresh_dir("nostart") / "nostart.db";
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
      .exec("CREATE TABLE rocpd_kernel_dispatch_x (id INTEGER PRIMARY KEY, kernel_id INTEGER);"
            "CREATE TABLE rocpd_info_kernel_symbol_x (id INTEGER PRIMARY KEY, kernel_name TEXT);");
  EXPECT_NE(read_error(path).find("has no column \"start\""), std::string::npos);
}

TEST(RocpdBadInput, MissingKernelSymbolTable) {
  const auto path = test::fresh_dir("nosym") / "nosym.db";
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
      .exec("CREATE TABLE rocpd_kernel_dispatch_x (id INTEGER PRIMARY KEY, kernel_id INTEGER, start INTEGER, end INTEGER);");
  EXPECT_NE(read_error(path).find("rocpd_info_kernel_symbol_x is missing"), std::string::npos);
}

// A table name as long as the file (the reader matched names with std::regex, which recurses per
// character), and names that only look like a dispatch table.
TEST(RocpdBadInput, VeryLongAndOddTableNames) {
  const auto path = test::fresh_dir("longname") / "longname.db";
  const std::string suffix = "_" + std::string(1'000'000, 'a');
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
      .exec("CREATE TABLE \"rocpd_kernel_dispatch" + suffix + "\" (id INTEGER PRIMARY KEY, kernel_id INTEGER, start INTEGER, end INTEGER);");
  EXPECT_NE(read_error(path).find("is missing"), std::string::npos);  // found as a dispatch table; its symbols are not there
  const auto odd = test::fresh_dir("oddname") / "oddname.db";
  SQLite::Database(odd.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
      .exec("CREATE TABLE \"rocpd_kernel_dispatch_\" (x); CREATE TABLE \"rocpd_kernel_dispatch-x\" (x);"
            "CREATE TABLE rocpd_kernel_dispatchx (x);");
  EXPECT_NE(read_error(odd).find("no rocpd tables"), std::string::npos);
}

TEST(RocpdBadInput, NoDispatchesIsReadableButEmpty) {
  const auto dir = test::fresh_dir("nodispatch");
  Trace t = read_rocpd({test::scenario("no-dispatches", 1, dir)});
  EXPECT_TRUE(t.dispatches.empty());
  EXPECT_EQ(t.agents.size(), 1u);
}

TEST(RocpdBadInput, UnknownKernelIdsAreKeptAndWarned) {
  const auto path = test::fresh_dir("orphan") / "orphan.db";
  SQLite::Database(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
      .exec("CREATE TABLE rocpd_kernel_dispatch_x (id INTEGER PRIMARY KEY, kernel_id INTEGER, start INTEGER, end INTEGER);"
            "CREATE TABLE rocpd_info_kernel_symbol_x (id INTEGER PRIMARY KEY, kernel_name TEXT);"
            "INSERT INTO rocpd_kernel_dispatch_x VALUES (1, 42, 100, 200), (2, 42, 300, 250);");
  Trace t = read_rocpd({path});
  ASSERT_EQ(t.dispatches.size(), 2u);
  EXPECT_EQ(t.symbols.at(t.dispatches[0].symbol).display_name, "<unknown kernel 42>");
  EXPECT_EQ(t.dispatches[1].duration_ns(), 0);
  ASSERT_EQ(t.warnings.size(), 2u);
}

TEST(RocpdBadInput, ReaderNeverModifiesTheFile) {
  const auto dir = test::fresh_dir("readonly");
  const auto path = test::scenario("mi300x", 1, dir);
  const auto before = test::read_text(path);
  const auto mtime = fs::last_write_time(path);
  read_rocpd({path});
  EXPECT_EQ(test::read_text(path), before);
  EXPECT_EQ(fs::last_write_time(path), mtime);
}

}  // namespace
}  // namespace rpl::trace
