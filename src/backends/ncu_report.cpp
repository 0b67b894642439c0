#include <rpl/backends/ncu_report.hpp>

#include <chrono>

#include <rpl/backends/ncu_counters.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/core/text.hpp>
#include <rpl/trace/ncu_reader.hpp>

namespace rpl::backends {
namespace {

// Exporting reads the whole report; a report of many launches takes seconds, not minutes.
constexpr double kImportTimeoutSeconds = 600;

// One page of the report, as CSV: the command and what it gave.
struct PageExport {
  std::vector<std::string> argv;
  ProcessResult result;
};
PageExport import_page(const std::filesystem::path& ncu, const std::filesystem::path& report, std::vector<std::string> page) {
  ProcessOptions p;
  p.argv = {ncu.string(), "--import", report.string(), "--csv"};
  p.argv.insert(p.argv.end(), page.begin(), page.end());
  p.capture_output = true;
  p.timeout = std::chrono::duration<double>(kImportTimeoutSeconds);
  auto result = run_process(p);
  return {std::move(p.argv), std::move(result)};
}

// What failed, with ncu's own words: its ==ERROR== line, where it refused the report.
std::string refusal(const PageExport& e) {
  const std::string said = last_line(e.result.output);
  return fmt::format("{} {} ({})", display_command(e.argv), e.result.describe(kImportTimeoutSeconds), said.empty() ? "no output" : said);
}

}  // namespace

trace::NcuReportPages ncu_report_pages(const std::filesystem::path& report) {
  const auto ncu = find_ncu();
  if (!ncu) {
    fail(Errc::missing_tool, "{}: an Nsight Compute report, which only ncu reads, and ncu is not in PATH or /usr/local/cuda/bin: "
                             "where it is, export the report (ncu --import {} --csv --page raw > report.csv) and give the CSV",
         report.string(), report.string());
  }
  const auto raw = import_page(*ncu, report, {"--page", "raw", "--print-units", "base"});
  if (!raw.result.ok()) fail(Errc::bad_input, "{}: ncu cannot read this report: {}", report.string(), refusal(raw));
  trace::NcuReportPages pages;
  pages.raw = raw.result.output;
  // The details page holds ncu's rules, which the raw page lacks; without it the report still reads.
  const auto details = import_page(*ncu, report, {"--page", "details"});
  if (details.result.ok()) {
    pages.details = details.result.output;
  } else {
    pages.details_problem = refusal(details);
  }
  // The full set's instructions by opcode: that metric alone, with its instances. A report without
  // it (another set, a --metrics list) exports its launches with no metric: no mix, as before.
  const auto opcodes = import_page(*ncu, report, {"--page", "raw", "--print-units", "base", "--metrics",
                                                  std::string(trace::kNcuOpcodeMetric), "--print-metric-instances", "details"});
  if (opcodes.result.ok()) {
    pages.opcodes = opcodes.result.output;
  } else {
    pages.opcodes_problem = refusal(opcodes);
  }
  return pages;
}

}  // namespace rpl::backends
