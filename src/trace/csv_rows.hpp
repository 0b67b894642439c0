#pragma once
// Streams a CSV file's rows (RFC 4180: quoted fields may hold commas, quotes and newlines) through
// libcsv, a block at a time: a file of a million dispatches is never held whole.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::trace::detail {

/// One row's fields; valid only during the callback that receives it.
using CsvRow = std::vector<std::string_view>;

/// Calls on_row for every row, the header first (row 0). A row whose field count differs from the
/// header's, or a file that ends inside a quoted field, is Error(bad_input) naming the file and row
/// ("truncated" when it is the last row). on_row returns false to stop early.
/// A file of 16 MiB or more is parsed in two parts at once (the rows still come in order).
void read_csv_rows(const std::filesystem::path& file, const std::function<bool(const CsvRow&, size_t row)>& on_row);

/// read_csv_rows, splitting files of `split_above` bytes or more (for tests: every file at 0).
void read_csv_rows_split_above(const std::filesystem::path& file, const std::function<bool(const CsvRow&, size_t row)>& on_row,
                               uint64_t split_above);

/// About how many rows the file holds, from the lines of its first 64 KiB: enough to size a list
/// once rather than grow it by copies.
size_t estimated_rows(const std::filesystem::path& file);

/// The header of a CSV file that begins with `head` (all of it where whole_file): its first line's
/// names, or nothing where that line does not end within head or is not text.
std::optional<std::vector<std::string>> csv_header(std::string_view head, bool whole_file);

/// A header's columns by name, matched without regard to case (rocpd's CSV writes Vgpr_Count where
/// rocprofv3 writes VGPR_Count).
class CsvColumns {
 public:
  explicit CsvColumns(const CsvRow& header);
  std::optional<size_t> find(std::string_view name) const;
  /// The first of the names present.
  std::optional<size_t> find_any(std::initializer_list<std::string_view> names) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;  // as written
  std::vector<std::string> lower_;
};

/// The field as an integer; nothing where empty or not a number.
std::optional<int64_t> csv_int(std::string_view field);

/// One row's fields as integers, with the file and row its errors name.
class CsvIntegers {
 public:
  CsvIntegers(const std::filesystem::path& file, const CsvRow& row, size_t row_number) : file_(file), row_(row), row_number_(row_number) {}
  /// Error(bad_input) "FILE: row N: WHAT is 'x', not a number" where the field is not one.
  int64_t required(size_t column, const char* what) const;
  /// 0 where the column is absent or the field empty or not a number.
  int64_t optional(const std::optional<size_t>& column) const { return column ? csv_int(row_[*column]).value_or(0) : 0; }

 private:
  const std::filesystem::path& file_;
  const CsvRow& row_;
  size_t row_number_;
};
/// The field as a number (counter values are written as 16384.000000); nothing where not one.
std::optional<double> csv_number(std::string_view field);

}  // namespace rpl::trace::detail
