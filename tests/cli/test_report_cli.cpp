// rocm-perf report and profile --html, opened in a real headless Chromium (Debian's): no console
// messages, the charts drawn, the numbers on the page equal to the JSON documents'.
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>
#include <rpl/core/subprocess.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

struct Page {
  std::string dom;      // the document after its scripts ran
  std::string console;  // what the page logged (Chromium's CONSOLE lines)
};

// Loads the page headless and returns its DOM; skips the test where Chromium is not installed.
std::optional<Page> open_in_chromium(const fs::path& html) {
  const auto chromium = find_executable("chromium");
  if (!chromium) return std::nullopt;
  ProcessOptions p;
  p.argv = {chromium->string(), "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
            "--dump-dom", "file://" + fs::absolute(html).string()};
  const auto dir = html.parent_path();
  p.output_file = dir / "dom.html";
  p.error_file = dir / "chromium.log";
  p.timeout = std::chrono::seconds(120);
  const auto r = run_process(p);
  EXPECT_TRUE(r.ok()) << r.describe(120) << read_text(dir / "chromium.log");
  Page page{read_text(dir / "dom.html"), ""};
  std::istringstream log(read_text(dir / "chromium.log"));
  for (std::string line; std::getline(log, line);) {
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos) page.console += line + "\n";
  }
  return page;
}

std::string element_text(const std::string& dom, const std::string& id) {
  std::smatch m;
  const std::regex re("id=\"" + id + "\">([^<]*)<");
  return std::regex_search(dom, m, re) ? m[1].str() : "";
}

std::string attribute_of_canvas(const std::string& dom, const std::string& id, const std::string& attribute) {
  std::smatch m;
  const std::regex re("<canvas id=\"" + id + "\"[^>]*" + attribute + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? m[1].str() : "";
}

#define OPEN_OR_SKIP(page, html)                                                                \
  auto page = open_in_chromium(html);                                                           \
  if (!page) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs Debian's)";

TEST(CliReport, ProfileHtmlOpensInChromiumWithTheProfilesNumbers) {
  const auto dir = fresh_dir("report_profile");
  const auto out = dir / "out";
  auto r = run_cli({"profile", "--runs", "2", "--html", "--out", out.string(), "--", "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_SCENARIO", "mi300x"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "report.html"));
  OPEN_OR_SKIP(page, out / "report.html");
  EXPECT_EQ(page->console, "") << "the page logged something";
  EXPECT_NE(page->dom.find("data-ready=\"yes\""), std::string::npos) << "the page's script ran to its end";
  const auto profile = json::parse(read_text(out / "profile.json"));
  EXPECT_EQ(element_text(page->dom, "runtime-ms"), fmt::format("{:.6f}", profile["runtime_ms"].get<double>()));
  EXPECT_EQ(element_text(page->dom, "kernel-name"), profile["kernel"]["name"].get<std::string>());
  EXPECT_EQ(element_text(page->dom, "kernel-dispatches"), std::to_string(profile["kernel"]["dispatches"].get<int>()));
  // Every kernel of the traces has a row: the mi300x scenario runs four.
  const auto body = page->dom.substr(page->dom.find("<table id=\"kernels\""));
  size_t rows = 0;
  for (size_t at = body.find("<tr><td>"); at != std::string::npos && at < body.find("</table>"); at = body.find("<tr><td>", at + 1)) ++rows;
  EXPECT_EQ(rows, 4u);
  EXPECT_EQ(attribute_of_canvas(page->dom, "roofline", "data-points"), "0") << "no roofline without --roofline";
}

TEST(CliReport, RooflineChartHasAPointPerKernelWithFlops) {
  const auto dir = fresh_dir("report_roofline");
  auto a = run_cli({"analyze", "--out", (dir / "out").string(), scenario("h100-roofline", 1, dir).string()});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto r = run_cli({"report", (dir / "out").string(), "-o", (dir / "page.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto roofline = json::parse(read_text(dir / "out" / "roofline.json"));
  int with_flops = 0;
  for (const auto& k : roofline["kernels"]) {
    with_flops += k["operational_intensity"].is_number() && k["operational_intensity"].get<double>() > 0 &&
                  k["achieved_flops_per_s"].is_number() && k["achieved_flops_per_s"].get<double>() > 0;
  }
  ASSERT_GT(with_flops, 0);
  OPEN_OR_SKIP(page, dir / "page.html");
  EXPECT_EQ(page->console, "");
  EXPECT_EQ(attribute_of_canvas(page->dom, "roofline", "data-points"), std::to_string(with_flops));
  EXPECT_NE(page->dom.find(">compute_bound<"), std::string::npos) << "the table shows each kernel's bound";
  const auto analysis = json::parse(read_text(dir / "out" / "analysis.json"));
  EXPECT_NE(element_text(page->dom, "bottleneck").find(analysis["classification"]["bottleneck"].get<std::string>()), std::string::npos);
}

TEST(CliReport, SameFolderSameBytes) {
  const auto dir = fresh_dir("report_bytes");
  ASSERT_EQ(run_cli({"analyze", "--out", (dir / "out").string(), scenario("multistream", 1, dir).string()}).exit_code, 0);
  ASSERT_EQ(run_cli({"report", (dir / "out").string(), "-o", (dir / "a.html").string()}).exit_code, 0);
  ASSERT_EQ(run_cli({"report", (dir / "out").string(), "-o", (dir / "b.html").string()}).exit_code, 0);
  EXPECT_EQ(read_text(dir / "a.html"), read_text(dir / "b.html"));
}

TEST(CliReport, BadInputIsOneLineAndItsExitCode) {
  const auto dir = fresh_dir("report_bad");
  fs::create_directories(dir / "empty");
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"report", (dir / "empty").string()}, "no profile.json here"},
           {{"report", (dir / "missing").string()}, "not a folder"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  ASSERT_EQ(run_cli({"analyze", "--out", (dir / "out").string(), scenario("mi300x", 1, dir).string()}).exit_code, 0);
  auto nowhere = run_cli({"report", (dir / "out").string(), "-o", (dir / "no/such/folder/r.html").string()});
  EXPECT_EQ(nowhere.exit_code, 2);
  EXPECT_NE(nowhere.err.find("no such folder"), std::string::npos) << nowhere.err;
  auto no_library = run_cli({"report", (dir / "out").string()}, {{"RPL_CHARTJS", (dir / "no-chart.js").string()}});
  EXPECT_EQ(no_library.exit_code, 3);
  EXPECT_NE(no_library.err.find("Chart.js not found (" + (dir / "no-chart.js").string() + ")"), std::string::npos) << no_library.err;
  std::ofstream(dir / "odd-chart.js") << "var x = '</script>';";
  auto odd = run_cli({"report", (dir / "out").string()}, {{"RPL_CHARTJS", (dir / "odd-chart.js").string()}});
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_NE(odd.err.find("cannot be inlined into a page"), std::string::npos) << odd.err;
  std::ofstream(dir / "out" / "roofline.json") << "{ broken";
  auto broken = run_cli({"report", (dir / "out").string()});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("roofline.json: not a JSON document"), std::string::npos) << broken.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "report.html"));
}

}  // namespace
}  // namespace rpl::test
