#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>

#include "test_support.hpp"

namespace rpl {
namespace {
namespace fs = std::filesystem;

TEST(Files, AtomicWriteReplacesContentAndLeavesNoTemporaries) {
  const auto dir = test::fresh_dir("atomic");
  const auto file = dir / "out.json";
  write_output_file(file, "first");
  write_output_file(file, "second");
  EXPECT_EQ(test::read_text(file), "second");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(Files, AtomicWriteIntoMissingFolderFailsAndKeepsNothing) {
  const auto dir = test::fresh_dir("atomic-missing");
  EXPECT_THROW(write_output_file(dir / "no" / "such" / "file", "x"), Error);
  EXPECT_FALSE(fs::exists(dir / "no"));
}

TEST(Files, ReadFileNamesTheMissingPath) {
  try {
    read_file("/nonexistent/rpl/file.db");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_EQ(std::string(e.what()), "/nonexistent/rpl/file.db: no such file");
  }
}

TEST(Files, TempDirIsRemovedUnlessKept) {
  fs::path removed, kept;
  {
    TempDir a("rpl-a-");
    TempDir b("rpl-b-");
    b.keep();
    removed = a.path();
    kept = b.path();
    EXPECT_TRUE(fs::is_directory(removed));
  }
  EXPECT_FALSE(fs::exists(removed));
  EXPECT_TRUE(fs::exists(kept));
  fs::remove_all(kept);
}

}  // namespace
}  // namespace rpl
