#include <rpl/backends/ncu_report.hpp>

#include <chrono>

#include <rpl/backends/ncu_counters.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/core/text.hpp>

namespace rpl::backends {
namespace {

// Exporting reads the whole report; a report of many launches takes seconds, not minutes.
constexpr double kImportTimeoutSeconds = 600;

}  // namespace

std::string ncu_report_csv(const std::filesystem::path& report) {
  const auto ncu = find_ncu();
  if (!ncu) {
    fail(Errc::missing_tool, "{}: an Nsight Compute report, which only ncu reads, and ncu is not in PATH or /usr/local/cuda/bin: "
                             "where it is, export the report (ncu --import {} --csv --page raw > report.csv) and give the CSV",
         report.string(), report.string());
  }
  ProcessOptions p;
  p.argv = {ncu->string(), "--import", report.string(), "--csv", "--page", "raw", "--print-units", "base"};
  p.capture_output = true;
  p.timeout = std::chrono::duration<double>(kImportTimeoutSeconds);
  const auto r = run_process(p);
  if (!r.ok()) {
    const std::string said = last_line(r.output);  // ncu's ==ERROR== line, where it refused the report
    fail(Errc::bad_input, "{}: ncu cannot read this report: {} {} ({})", report.string(), display_command(p.argv),
         r.describe(kImportTimeoutSeconds), said.empty() ? "no output" : said);
  }
  return r.output;
}

}  // namespace rpl::backends
