#include <rpl/backends/ncu_report.hpp>

#include <chrono>
#include <sstream>

#include <rpl/backends/ncu_counters.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends {
namespace {

// Exporting reads the whole report; a report of many launches takes seconds, not minutes.
constexpr double kImportTimeoutSeconds = 600;

// ncu's last words (its ==ERROR== line), where it refused the report.
std::string last_line(const std::string& output) {
  std::istringstream lines(output);
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last.empty() ? "no output" : last;
}

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
    fail(Errc::bad_input, "{}: ncu cannot read this report: {} {} ({})", report.string(), display_command(p.argv),
         r.describe(kImportTimeoutSeconds), last_line(r.output));
  }
  return r.output;
}

}  // namespace rpl::backends
