#include <rpl/backends/ncu_source.hpp>

#include <array>
#include <sstream>

#include <rpl/backends/ncu_counters.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/subprocess.hpp>

#include "ncu_csv.hpp"

namespace rpl::backends {
namespace fs = std::filesystem;
using detail::csv_fields;
using detail::csv_number;

namespace {

// The source view's short column names -> ncu's stall reason names (as its metrics spell them);
// the others are the same in both.
constexpr std::array<std::pair<const char*, const char*>, 10> kShortReasons = {{
    {"dispatch", "dispatch_stall"},
    {"imc", "imc_miss"},
    {"lg", "lg_throttle"},
    {"long_sb", "long_scoreboard"},
    {"math", "math_pipe_throttle"},
    {"mio", "mio_throttle"},
    {"no_inst", "no_instruction"},
    {"short_sb", "short_scoreboard"},
    {"sleep", "sleeping"},
    {"tex", "tex_throttle"},
}};

std::string reason_name(const std::string& column) {
  const std::string r = column.substr(6);  // after "stall_"
  for (const auto& [short_name, name] : kShortReasons) {
    if (r == short_name) return name;
  }
  return r;
}

constexpr size_t kAbsent = static_cast<size_t>(-1);

int64_t count(const std::vector<std::string>& fields, size_t column) {
  if (column >= fields.size()) return 0;
  const auto v = csv_number(fields[column]);
  return v && *v > 0 ? static_cast<int64_t>(*v) : 0;
}

std::string field(const std::vector<std::string>& fields, size_t column) { return column < fields.size() ? fields[column] : ""; }

std::optional<uint64_t> hex_address(const std::string& text) {
  if (text.size() < 3 || text.compare(0, 2, "0x") != 0) return std::nullopt;
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(text, &used, 16);
    return used == text.size() ? std::optional<uint64_t>(v) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(' ') - a + 1);
}

// The columns of one view's header row (kAbsent where the view has none).
struct Columns {
  bool read = false;
  size_t line = kAbsent, address = kAbsent, samples = kAbsent, not_issued = kAbsent, executed = kAbsent;
  size_t line_text = kAbsent, sass = kAbsent;
  std::vector<std::pair<size_t, std::string>> reasons;  // column, ncu's reason

  void read_header(const std::vector<std::string>& header) {
    *this = Columns{};
    read = true;
    for (size_t i = 0; i < header.size(); ++i) {
      const std::string& h = header[i];
      if (h == "Line No") line = i;
      else if (h == "Address") address = i;
      else if (h == "Source") (address == kAbsent ? line_text : sass) = i;
      else if (h == "Warp Stall Sampling (All Samples)") samples = i;
      else if (h == "Warp Stall Sampling (Not-issued Samples)") not_issued = i;
      else if (h == "Instructions Executed") executed = i;
      else if (h.rfind("stall_", 0) == 0 && h.find(' ') == std::string::npos && h != "stall_selected") reasons.emplace_back(i, reason_name(h));
    }
  }
};

}  // namespace

std::vector<trace::SourceView> parse_ncu_source_csv(const std::string& text, const std::string& origin) {
  std::vector<trace::SourceView> views;
  Columns columns;
  std::optional<int64_t> current_line;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '"') continue;
    const auto fields = csv_fields(line);
    const std::string& first = fields[0];
    if (first == "File Path" || first == "File Name" || first == "Function Name" || first == "Kernel Name") {
      // A view begins with its file (cuda,sass) or its kernel (sass); "Function Name" follows "File Path".
      if (first != "Function Name" && (views.empty() || columns.read)) views.emplace_back();
      if (views.empty()) views.emplace_back();
      (first == "File Path" || first == "File Name" ? views.back().file : views.back().function) = field(fields, 1);
      columns.read = false;
      current_line.reset();
      continue;
    }
    if (views.empty()) continue;
    if (!columns.read) {
      if (first == "Line No" || first == "Address") columns.read_header(fields);
      continue;
    }
    auto& view = views.back();
    if (auto address = hex_address(field(fields, columns.address))) {
      trace::SampledInstruction ins;
      ins.address = *address;
      ins.sass = trimmed(field(fields, columns.sass));
      ins.samples = count(fields, columns.samples);
      ins.not_issued_samples = count(fields, columns.not_issued);
      ins.executed = count(fields, columns.executed);
      ins.line = current_line;
      int64_t best = 0;
      for (const auto& [column, reason] : columns.reasons) {
        if (const int64_t n = count(fields, column); n > best) {
          best = n;
          ins.top_reason = reason;
        }
      }
      view.instructions.push_back(std::move(ins));
    } else if (auto number = csv_number(field(fields, columns.line))) {
      current_line = static_cast<int64_t>(*number);
      view.lines.push_back({*current_line, trimmed(field(fields, columns.line_text)), count(fields, columns.samples),
                            count(fields, columns.not_issued)});
    }
  }
  std::erase_if(views, [](const trace::SourceView& v) { return v.instructions.empty(); });
  if (views.empty()) fail(Errc::bad_input, "{}: not an ncu source view with SASS (ncu --page source --csv --print-source cuda,sass)", origin);
  return views;
}

std::vector<trace::SourceView> read_ncu_source(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) fail(Errc::bad_input, "{}: not a file (give ncu's source view as CSV)", file.string());
  return parse_ncu_source_csv(read_file(file, std::uintmax_t{256} << 20), file.string());
}

fs::path collect_ncu_source(const RunOptions& run, const NcuKernelFilter& kernel, const fs::path& dir) {
  const auto ncu = find_ncu();
  if (!ncu) fail(Errc::missing_tool, "ncu (Nsight Compute) not found in PATH or /usr/local/cuda/bin: install it, or profile without --deep");
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path report = dir / "source.ncu-rep", view = dir / "ncu_source.csv", log_file = dir / "ncu_source_run.log";
  ProcessOptions p;
  p.argv = {ncu->string(), "--section", "SourceCounters", "--kernel-name-base", kernel.mangled ? "mangled" : "function",
            "--kernel-name", "regex:" + kernel.regex, "--launch-count", "1", "--target-processes", "all", "--clock-control",
            "none", "-f", "-o", report.string()};
  p.argv.insert(p.argv.end(), run.command.begin(), run.command.end());
  p.output_file = log_file;
  if (run.timeout_seconds) p.timeout = std::chrono::duration<double>(*run.timeout_seconds);
  log::debug(fmt::format("source pass: {}", display_command(p.argv)));
  const auto r = run_process(p);
  // ncu's own lines are few; a program that printed more than this has not been refused by ncu.
  if (const auto size = fs::file_size(log_file, ec); !ec && size <= (std::uintmax_t{16} << 20)) {
    detail::fail_if_counters_forbidden("source pass", read_file(log_file), log_file);
  }
  if (!r.ok()) {
    fail(Errc::run_failed, "source pass: {} {} (its output: {})", display_command(p.argv), r.describe(run.timeout_seconds.value_or(0)),
         log_file.string());
  }
  if (!fs::exists(report, ec)) {
    fail(Errc::run_failed, "source pass: ncu profiled no launch of a kernel matching {} (its output: {})", kernel.regex,
         log_file.string());
  }
  // A kernel built without -lineinfo (PyTorch's, cuBLAS's) has no CUDA-C view: for cuda,sass ncu
  // then prints a warning alone (seen on the H100), and the SASS view must be asked for by itself.
  for (const char* print : {"cuda,sass", "sass"}) {
    ProcessOptions import;
    import.argv = {ncu->string(), "--import", report.string(), "--page", "source", "--csv", "--print-source", print};
    import.output_file = view;
    const auto imported = run_process(import);
    if (!imported.ok()) fail(Errc::run_failed, "source pass: {} {}", display_command(import.argv), imported.describe(0));
    try {
      parse_ncu_source_csv(read_file(view, std::uintmax_t{256} << 20), view.string());
      return view;
    } catch (const Error&) {
    }
  }
  fail(Errc::run_failed, "source pass: ncu's source page has no SASS for the kernel (its report: {})", report.string());
}

}  // namespace rpl::backends
