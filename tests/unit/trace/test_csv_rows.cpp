// The CSV rows of a large file are parsed in two parts at once: the rows, their order, their row
// numbers and the errors must be those of one parse, wherever the cut falls.
#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>

#include "csv_rows.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {

struct Read {
  std::vector<std::vector<std::string>> rows;
  std::string error;
};

Read read(const std::filesystem::path& file, uint64_t split_above) {
  Read r;
  try {
    trace::detail::read_csv_rows_split_above(file, [&](const trace::detail::CsvRow& row, size_t n) {
      EXPECT_EQ(n, r.rows.size());
      r.rows.emplace_back(row.begin(), row.end());
      return true;
    }, split_above);
  } catch (const rpl::Error& e) {
    r.error = e.what();
  }
  return r;
}

// Rows whose quoted fields hold commas, doubled quotes and line ends, so that the middle of the
// file falls inside one of them for some row counts.
std::string rows_text(int rows) {
  std::string text = "\"Name\",\"Value\",\"Note\"\r\n";
  for (int i = 0; i < rows; ++i) {
    text += "\"k" + std::to_string(i) + "(int, \"\"x\"\")\"," + std::to_string(i) + ",";
    text += i % 3 == 0 ? "\"line one\nline two, " + std::string(static_cast<size_t>(i % 17), 'y') + "\"\r\n" : "plain\r\n";
  }
  return text;
}

TEST(CsvRows, TwoPartsGiveTheRowsOfOneParseWhereverTheCutFalls) {
  const auto dir = fresh_dir("csv_rows_split");
  for (int rows : {1, 2, 3, 7, 40, 41, 42, 43, 200}) {
    const auto file = dir / ("rows_" + std::to_string(rows) + ".csv");
    write_output_file(file, rows_text(rows));
    const Read whole = read(file, UINT64_MAX), parts = read(file, 0);
    ASSERT_TRUE(whole.error.empty()) << whole.error;
    ASSERT_EQ(whole.rows.size(), static_cast<size_t>(rows) + 1);
    EXPECT_EQ(parts.rows, whole.rows) << rows << " rows";
    EXPECT_EQ(parts.error, whole.error);
  }
  EXPECT_EQ(read(dir / "rows_3.csv", 0).rows[1][0], "k0(int, \"x\")");
  EXPECT_EQ(read(dir / "rows_3.csv", 0).rows[1][2], "line one\nline two, ");
}

TEST(CsvRows, ErrorsInTheSecondPartAreThoseOfOneParse) {
  const auto dir = fresh_dir("csv_rows_split_errors");
  // Cut short inside a quoted field near the end; a row of another width in the second half.
  std::string text = rows_text(61);  // its last row ends in a quoted field
  write_output_file(dir / "cut.csv", text.substr(0, text.size() - 5));
  text += "\"extra\",1\r\n";
  write_output_file(dir / "width.csv", text + rows_text(5).substr(24));
  for (const char* name : {"cut.csv", "width.csv"}) {
    const Read whole = read(dir / name, UINT64_MAX), parts = read(dir / name, 0);
    ASSERT_FALSE(whole.error.empty()) << name;
    EXPECT_EQ(parts.error, whole.error) << name;
    EXPECT_EQ(parts.rows, whole.rows) << name;
  }
  EXPECT_NE(read(dir / "cut.csv", 0).error.find("unclosed quote"), std::string::npos);
  EXPECT_NE(read(dir / "width.csv", 0).error.find("has 2 fields where the header has 3"), std::string::npos);
}

// on_row may stop the reading early: neither parser is left running.
TEST(CsvRows, StoppingEarlyStopsBothParts) {
  const auto dir = fresh_dir("csv_rows_split_stop");
  write_output_file(dir / "rows.csv", rows_text(5000));
  size_t seen = 0;
  trace::detail::read_csv_rows_split_above(dir / "rows.csv", [&](const trace::detail::CsvRow&, size_t) { return ++seen < 3; }, 0);
  EXPECT_EQ(seen, 3u);
}

}  // namespace
}  // namespace rpl::test
