#include "csv_rows.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>

#include <csv.h>

#include <rpl/core/error.hpp>

namespace rpl::trace::detail {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// What libcsv's callbacks fill: the fields of the row being read, in one buffer.
struct RowState {
  const fs::path* file = nullptr;
  const std::function<bool(const CsvRow&, size_t)>* on_row = nullptr;
  std::string text;
  std::vector<size_t> ends;  // where each field ends in text
  CsvRow row;
  size_t rows = 0;
  size_t width = 0;  // the header's field count
  bool stop = false;
  bool short_row = false;  // a row of another width than the header's, seen at row `bad_row`
  size_t bad_row = 0, bad_width = 0;
};

void on_field(void* data, size_t size, void* state_ptr) {
  auto& s = *static_cast<RowState*>(state_ptr);
  if (data) s.text.append(static_cast<const char*>(data), size);
  s.ends.push_back(s.text.size());
}

void on_row_end(int, void* state_ptr) {
  auto& s = *static_cast<RowState*>(state_ptr);
  if (s.stop) return;
  s.row.clear();
  size_t begin = 0;
  for (size_t end : s.ends) s.row.emplace_back(s.text.data() + begin, end - begin), begin = end;
  const bool blank = s.row.size() == 1 && s.row[0].empty();
  if (!blank) {
    if (s.rows == 0) s.width = s.row.size();
    if (s.row.size() != s.width && !s.short_row) {
      s.short_row = true, s.bad_row = s.rows, s.bad_width = s.row.size();
      s.stop = true;
    } else if (!(*s.on_row)(s.row, s.rows)) {
      s.stop = true;
    }
    ++s.rows;
  }
  s.text.clear();
  s.ends.clear();
}

}  // namespace

void read_csv_rows(const fs::path& file, const std::function<bool(const CsvRow&, size_t)>& on_row) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(Errc::bad_input, "{}: cannot be read", file.string());
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0) fail(Errc::internal, "libcsv could not start");
  RowState state;
  state.file = &file;
  state.on_row = &on_row;
  std::vector<char> block(1 << 20);
  bool ok = true;
  while (ok && !state.stop && in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    ok = csv_parse(&parser, block.data(), got, on_field, on_row_end, &state) == got;
  }
  if (ok && !state.stop) ok = csv_fini(&parser, on_field, on_row_end, &state) == 0;
  const int error = csv_error(&parser);
  csv_free(&parser);
  if (state.short_row) {
    fail(Errc::bad_input, "{}: row {} has {} fields where the header has {} (a file cut short, or rows of another layout)", file.string(),
         state.bad_row + 1, state.bad_width, state.width);
  }
  if (!ok) {
    fail(Errc::bad_input, "{}: not a well-formed CSV file after row {}: {}{}", file.string(), state.rows, csv_strerror(error),
         error == CSV_EPARSE ? " (an unclosed quote: truncated?)" : "");
  }
}

size_t estimated_rows(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return 0;
  std::ifstream in(file, std::ios::binary);
  std::string sample(64 << 10, '\0');
  in.read(sample.data(), static_cast<std::streamsize>(sample.size()));
  sample.resize(static_cast<size_t>(in.gcount()));
  const auto lines = static_cast<size_t>(std::count(sample.begin(), sample.end(), '\n'));
  if (lines == 0 || sample.empty()) return 0;
  return static_cast<size_t>(static_cast<double>(size) * static_cast<double>(lines) / static_cast<double>(sample.size()) * 1.05);
}

std::optional<std::vector<std::string>> csv_header(const fs::path& file) {
  // A header line is short: read a bounded prefix, never a whole file (nor an endless one).
  constexpr size_t kMaxHeader = 1 << 20;
  std::ifstream in(file, std::ios::binary);
  std::string line(kMaxHeader, '\0');
  in.read(line.data(), static_cast<std::streamsize>(line.size()));
  line.resize(static_cast<size_t>(in.gcount()));
  const auto newline = line.find('\n');
  if (newline == std::string::npos && line.size() == kMaxHeader) return std::nullopt;
  line.resize(std::min(newline, line.size()));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty() || line.find('\0') != std::string::npos) return std::nullopt;
  // The header's names never hold commas or quotes: split plainly, dropping the quotes.
  std::vector<std::string> names;
  size_t begin = 0;
  while (begin <= line.size()) {
    size_t end = line.find(',', begin);
    if (end == std::string::npos) end = line.size();
    std::string name = line.substr(begin, end - begin);
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
    names.push_back(std::move(name));
    begin = end + 1;
  }
  return names;
}

CsvColumns::CsvColumns(const CsvRow& header) {
  for (auto name : header) names_.emplace_back(name), lower_.push_back(lower(name));
}

std::optional<size_t> CsvColumns::find(std::string_view name) const {
  const auto want = lower(name);
  for (size_t i = 0; i < lower_.size(); ++i) {
    if (lower_[i] == want) return i;
  }
  return std::nullopt;
}

std::optional<size_t> CsvColumns::find_any(std::initializer_list<std::string_view> names) const {
  for (auto n : names) {
    if (auto i = find(n)) return i;
  }
  return std::nullopt;
}

std::optional<int64_t> csv_int(std::string_view field) {
  int64_t v = 0;
  const char* end = field.data() + field.size();
  auto [p, ec] = std::from_chars(field.data(), end, v);
  if (ec != std::errc() || field.empty()) return std::nullopt;
  if (p != end) {  // 16384.000000: a whole number written as a float
    const auto d = csv_number(field);
    if (!d || *d != static_cast<double>(static_cast<int64_t>(*d))) return std::nullopt;
    return static_cast<int64_t>(*d);
  }
  return v;
}

std::optional<double> csv_number(std::string_view field) {
  double v = 0;
  const char* end = field.data() + field.size();
  auto [p, ec] = std::from_chars(field.data(), end, v);
  if (ec != std::errc() || p != end || field.empty()) return std::nullopt;
  return v;
}

}  // namespace rpl::trace::detail
