// rocm-perf report and profile --html, opened in a real headless Chromium (Debian's): no console
// messages, the charts drawn, the numbers on the page equal to the JSON documents'.
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"
#include "trace_scenarios.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

struct Page {
  std::string dom;      // the document after its scripts ran
  std::string console;  // what the page logged (Chromium's CONSOLE lines)
};

// Loads the page headless and returns its DOM; skips the test where Chromium is not installed.
// fragment ("#rpl-selftest") is added to the page's address.
std::optional<Page> open_in_chromium(const fs::path& html, const std::string& fragment = "") {
  const auto chromium = find_executable("chromium");
  if (!chromium) return std::nullopt;
  ProcessOptions p;
  p.argv = {chromium->string(), "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
            "--dump-dom", "file://" + fs::absolute(html).string() + fragment};
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

// auto page = PAGE (an optional<Page>), or skip the test where Chromium is not installed.
#define OPEN_OR_SKIP(page, opened)                                                               \
  auto page = (opened);                                                                         \
  if (!page) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs Debian's)";

TEST(CliReport, ProfileHtmlOpensInChromiumWithTheProfilesNumbers) {
  const auto dir = fresh_dir("report_profile");
  const auto out = dir / "out";
  auto r = run_cli({"profile", "--runs", "2", "--html", "--out", out.string(), "--", "/bin/true"},
                   {{"PATH", fake_rocprof_dir().string() + ":/usr/bin:/bin"}, {"RPL_FAKE_ROCPROF_SCENARIO", "mi300x"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "report.html"));
  OPEN_OR_SKIP(page, open_in_chromium(out / "report.html"));
  EXPECT_EQ(page->console, "") << "the page logged something";
  EXPECT_NE(page->dom.find("data-ready=\"yes\""), std::string::npos) << "the page's script ran to its end";
  const auto profile = json::parse(read_text(out / "profile.json"));
  EXPECT_EQ(element_text(page->dom, "runtime-ms"), fmt::format("{:.6f}", profile["runtime_ms"].get<double>()));
  // The kernel's short name, its full name on hover.
  const std::string named = "<span title=\"" + profile["kernel"]["name"].get<std::string>() + "\">" +
                            profile["kernel"]["short_name"].get<std::string>() + "</span>";
  EXPECT_NE(page->dom.find("id=\"kernel-name\">" + named), std::string::npos) << named;
  EXPECT_EQ(element_text(page->dom, "kernel-dispatches"), std::to_string(profile["kernel"]["dispatches"].get<int>()));
  // Every kernel of the traces has a row: the mi300x scenario runs four.
  const auto body = page->dom.substr(page->dom.find("<table id=\"kernels\""));
  size_t rows = 0;
  for (size_t at = body.find("<tr><td>"); at != std::string::npos && at < body.find("</table>"); at = body.find("<tr><td>", at + 1)) ++rows;
  EXPECT_EQ(rows, 4u);
  // The dominant kernel's row gives the occupancy of profile.json.
  const auto row_at = body.find("<tr><td>" + named + "</td>");
  ASSERT_NE(row_at, std::string::npos);
  const auto row = body.substr(row_at, body.find("</tr>", row_at) - row_at);
  EXPECT_NE(row.find(fmt::format(">{:.1f} % ({})</td>", profile["occupancy"]["theoretical"].get<double>() * 100,
                                 profile["occupancy"]["limiter"].get<std::string>())),
            std::string::npos) << row;
  EXPECT_EQ(attribute_of_canvas(page->dom, "roofline", "data-points"), "0") << "no roofline without --roofline";
  EXPECT_NE(page->dom.find("No kernel has measured FLOPs and bytes"), std::string::npos);
  // The timeline is of the first run: its every dispatch and copy.
  std::vector<fs::path> run1_databases;
  for (const auto& e : fs::directory_iterator(out / ".rocpd_profile")) {
    if (e.path().filename().string().rfind("run1_", 0) == 0 && e.path().extension() == ".db") run1_databases.push_back(e.path());
  }
  ASSERT_EQ(run1_databases.size(), 1u);
  const auto run1 = trace::read_rocpd(run1_databases);
  EXPECT_EQ(attribute_of_canvas(page->dom, "timeline", "data-bars"),
            std::to_string(run1.dispatches.size() + run1.memory_copies.size()));
  EXPECT_NE(element_text(page->dom, "timeline-caption").find(" of " + run1_databases[0].filename().string() + " on "), std::string::npos) << page->dom;
}

// The numbers that the page's self-test (#rpl-selftest) wrote: "zoom=0.4096 drawn=12 pan=..." as a map.
std::map<std::string, std::string> self_test_of(const std::string& dom) {
  std::map<std::string, std::string> values;
  std::istringstream words(attribute_of_canvas(dom, "timeline", "data-selftest"));
  for (std::string word; words >> word;) {
    const auto eq = word.find('=');
    if (eq != std::string::npos) values[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return values;
}

// analyze --out DIR/out, then report of it with the timeline of db into DIR/page.html, opened with
// its self-test; checks that it logged nothing and ran to its end. None where Chromium is missing.
std::optional<Page> timeline_page(const fs::path& dir, const fs::path& db) {
  EXPECT_EQ(run_cli({"analyze", "--out", (dir / "out").string(), db.string()}).exit_code, 0);
  const auto r = run_cli({"report", (dir / "out").string(), "--trace", db.string(), "-o", (dir / "page.html").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto page = open_in_chromium(dir / "page.html", "#rpl-selftest");
  if (page) {
    EXPECT_EQ(page->console, "");
    EXPECT_NE(page->dom.find("data-ready=\"yes\""), std::string::npos);
  }
  return page;
}

TEST(CliReport, TimelineDrawsEveryOperationAndZoomsAndPans) {
  const auto dir = fresh_dir("report_timeline");
  const auto db = scenario("multistream", 1, dir);
  OPEN_OR_SKIP(page, timeline_page(dir, db));
  const auto trace = trace::read_rocpd({db});
  EXPECT_EQ(attribute_of_canvas(page->dom, "timeline", "data-bars"),
            std::to_string(trace.dispatches.size() + trace.memory_copies.size()));
  const auto caption = element_text(page->dom, "timeline-caption");
  EXPECT_NE(caption.find("on 3 streams"), std::string::npos) << caption;
  const auto dag = json::parse(read_text(dir / "out" / "dag.json"));
  EXPECT_NE(caption.find(fmt::format("critical path, in red, is {:.3f} ms", dag["critical_path_ns"].get<double>() / 1e6)),
            std::string::npos) << caption;
  // Four wheel steps in the middle leave 0.8^4 of the trace in view; a drag of 100 pixels to the
  // right shows what came before, by 100 pixels' worth; a double click shows the whole trace again.
  const auto steps = self_test_of(page->dom);
  EXPECT_EQ(steps.count("zoom") ? steps.at("zoom") : "", "0.4096") << attribute_of_canvas(page->dom, "timeline", "data-selftest");
  EXPECT_NEAR(std::stod(steps.count("pan_px") ? steps.at("pan_px") : "0"), 100, 0.5);
  EXPECT_EQ(steps.count("reset") ? steps.at("reset") : "", "yes");
  EXPECT_EQ(attribute_of_canvas(page->dom, "timeline", "data-drawn"), attribute_of_canvas(page->dom, "timeline", "data-bars"))
      << "17 operations far apart are each a bar of their own";
  const int named = std::stoi("0" + attribute_of_canvas(page->dom, "timeline", "data-names"));
  EXPECT_GT(named, 0) << "the widest bars carry their kernel's name";
  EXPECT_LE(named, 17);
  // The address can say which part to show first.
  OPEN_OR_SKIP(part, open_in_chromium(dir / "page.html", "#view=0.5,1.25"));
  EXPECT_EQ(attribute_of_canvas(part->dom, "timeline", "data-view"), "500000,1250000");
  OPEN_OR_SKIP(path, open_in_chromium(dir / "page.html", "#view=critical"));
  EXPECT_EQ(attribute_of_canvas(path->dom, "timeline", "data-view"), "0,2000000") << "the path spans the whole trace";
}

// 100,000 dispatches on 16 streams: the page loads, holds them all, and draws a bounded number of
// bars (those narrower than a pixel are merged), zoomed out and in.
TEST(CliReport, TimelineOfAHundredThousandDispatches) {
  const auto dir = fresh_dir("report_timeline_100k");
  const auto db = dir / "dag.db";
  tools::write_dag_benchmark_trace(db, 100'000, 16, 10'000);
  OPEN_OR_SKIP(page, timeline_page(dir, db));
  EXPECT_EQ(attribute_of_canvas(page->dom, "timeline", "data-bars"), "100000");
  EXPECT_NE(element_text(page->dom, "timeline-caption").find("100,000 kernels and copies of dag.db on 16 streams;"),
            std::string::npos) << element_text(page->dom, "timeline-caption");
  const double width = std::stod(attribute_of_canvas(page->dom, "timeline", "data-width"));
  const auto bound = [&](double w) { return 16 * 3 * (w + 2); };  // lanes × datasets × (a bar per pixel + ends)
  const double drawn = std::stod(attribute_of_canvas(page->dom, "timeline", "data-drawn"));
  EXPECT_LE(drawn, bound(width)) << "zoomed out";
  EXPECT_LT(drawn, 100'000);
  const auto steps = self_test_of(page->dom);
  EXPECT_EQ(steps.count("zoom") ? steps.at("zoom") : "", "0.4096");
  ASSERT_TRUE(steps.count("drawn"));
  EXPECT_LE(std::stod(steps.at("drawn")), bound(width)) << "zoomed in";
  EXPECT_EQ(steps.count("reset") ? steps.at("reset") : "", "yes");
}

TEST(CliReport, TimelineSaysWhyItIsMissing) {
  const auto dir = fresh_dir("report_no_timeline");
  ASSERT_EQ(run_cli({"analyze", "--out", (dir / "out").string(), scenario("mi300x", 1, dir).string()}).exit_code, 0);
  ASSERT_EQ(run_cli({"report", (dir / "out").string()}).exit_code, 0);
  const auto html = read_text(dir / "out" / "report.html");
  EXPECT_NE(html.find("No timeline: this folder holds no trace"), std::string::npos);
  const auto empty = scenario("no-dispatches", 1, dir);
  ASSERT_EQ(run_cli({"report", (dir / "out").string(), "--trace", empty.string(), "-o", (dir / "e.html").string()}).exit_code, 0);
  EXPECT_NE(read_text(dir / "e.html").find("No timeline: the trace has no kernels or copies."), std::string::npos);
  // A --trace that cannot be read: one line, exit 2, and the report already there is left as it was.
  std::ofstream(dir / "notes.db") << "not a database";
  for (const auto& bad : {dir / "none.db", dir / "notes.db"}) {
    auto r = run_cli({"report", (dir / "out").string(), "--trace", bad.string()});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(bad.string()), std::string::npos) << r.err;
    EXPECT_EQ(read_text(dir / "out" / "report.html"), html);
  }
}

// The report of `analyze --out` of a trace, in a fresh folder of that name.
std::string report_of_trace(const std::string& name, const fs::path& trace) {
  const auto dir = fresh_dir(name);
  EXPECT_EQ(run_cli({"analyze", "--out", (dir / "out").string(), trace.string()}).exit_code, 0);
  EXPECT_EQ(run_cli({"report", (dir / "out").string()}).exit_code, 0);
  return read_text(dir / "out" / "report.html");
}

// A kernel that ran once has no spread: the summary says so rather than "stable".
TEST(CliReport, AKernelThatRanOnceIsASingleSample) {
  const auto html = report_of_trace("report_single_sample", source_dir() / "tests/fixtures/real/omniperf-1.0.10-mi200");
  EXPECT_NE(html.find("a single sample: no spread to judge"), std::string::npos);
  EXPECT_EQ(html.find("stable: cv"), std::string::npos);
}

// ncu's details page names no product: the report says the table's stands in, not that it is one.
// Its launches were timed one at a time: the critical path is their sum, not a span of the program.
TEST(CliReport, AnNcuFileIsNotTakenForWhatItDidNotRecord) {
  const auto html = report_of_trace("report_ncu", source_dir() / "tests/fixtures/ncu_details_torch_roofline.csv");
  EXPECT_NE(html.find("sm_90, product not recorded (taken as NVIDIA H100 SXM)"), std::string::npos);
  EXPECT_EQ(html.find("NVIDIA H100 SXM (sm_90)"), std::string::npos);
  EXPECT_NE(html.find("1.729 ms: the launches' sum (timed one at a time, laid end to end)"), std::string::npos);
  EXPECT_EQ(html.find("ms span"), std::string::npos);
  EXPECT_NE(html.find("<td id=\"speed-of-light\">SM 89.9 %, memory 69.5 %, DRAM 16.6 % of their peaks</td>"), std::string::npos)
      << "ncu's own percentages of peak";
  EXPECT_NE(html.find("<li><b>TheoreticalOccupancy</b> (estimated local speedup 81.2 %): The 3.00 theoretical warps per scheduler"),
            std::string::npos)
      << "ncu's own rules, in its words";
  // No FLOPs place any kernel on the roofline: the table's Bound column gives each ncu's percentages.
  EXPECT_NE(html.find("<td>SM 89.9 %, memory 69.5 %, DRAM 16.6 % (ncu)</td></tr>"), std::string::npos) << "the GEMM";
  EXPECT_NE(html.find("<td>SM 28.6 %, memory 85.0 %, DRAM 85.0 % (ncu)</td></tr>"), std::string::npos) << "the clamp";
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
  OPEN_OR_SKIP(page, open_in_chromium(dir / "page.html"));
  EXPECT_EQ(page->console, "");
  EXPECT_EQ(attribute_of_canvas(page->dom, "roofline", "data-points"), std::to_string(with_flops));
  EXPECT_NE(page->dom.find(">compute_bound<"), std::string::npos) << "the table shows each kernel's bound";
  EXPECT_EQ(page->dom.find("No kernel has measured FLOPs"), std::string::npos);
  const auto analysis = json::parse(read_text(dir / "out" / "analysis.json"));
  EXPECT_NE(element_text(page->dom, "bottleneck").find(analysis["classification"]["bottleneck"].get<std::string>()), std::string::npos);
}

// A folder of rocm-perf optimize: its baseline's profile, and a row per candidate. The optimize.json
// is a real one, recorded on an H100 (bench/data).
TEST(CliReport, AnOptimizeFolderShowsItsCandidates) {
  const auto dir = fresh_dir("report_optimize");
  const auto out = dir / "out";
  ASSERT_EQ(run_cli({"analyze", "--out", (out / "work/baseline/profile").string(), scenario("mi300x", 1, dir).string()}).exit_code, 0);
  auto missing = run_cli({"report", out.string()});
  EXPECT_EQ(missing.exit_code, 2) << "no optimize.json and no profile.json in the folder itself";
  fs::copy_file(source_dir() / "bench/data/optimize_softmax_h100_stand_in_model.json", out / "optimize.json");
  const auto r = run_cli({"report", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(read_text(out / "optimize.json"));
  const auto html = read_text(out / "report.html");
  const auto table = html.substr(html.find("<table id=\"candidates\""));
  size_t rows = 0;
  for (size_t at = table.find("<tr class="); at != std::string::npos && at < table.find("</table>"); at = table.find("<tr class=", at + 1)) ++rows;
  EXPECT_EQ(rows, doc["candidates"].size());
  for (const auto& c : doc["candidates"]) {
    const auto row_at = table.find("<td>" + c["origin"]["description"].get<std::string>() + "</td>");
    ASSERT_NE(row_at, std::string::npos) << c["origin"];
    const auto row = table.substr(row_at, table.find("</tr>", row_at) - row_at);
    if (c["verdict"] == "accepted") {
      EXPECT_NE(row.find(fmt::format("{:.3f}x", c["replay"]["speedup"].get<double>())), std::string::npos) << row;
    } else {
      EXPECT_NE(row.find(c["stage"].get<std::string>() + ": "), std::string::npos) << row;
    }
  }
  EXPECT_NE(html.find(fmt::format("candidate {}: {:.2f}x on replay", doc["best"]["id"].get<int>(), doc["best"]["kernel_speedup"].get<double>())),
            std::string::npos);
  EXPECT_NE(html.find("id=\"optimize-rejections\">compile 1, correctness 3, ignores_parameter 1, speed 4<"), std::string::npos);
  EXPECT_NE(html.find("id=\"optimize-shapes\">1 (--check-args with another shape adds a second)<"), std::string::npos);
  EXPECT_NE(html.find("id=\"optimize-sanitizer\">racecheck, synccheck and memcheck on each correct candidate<"), std::string::npos);
  EXPECT_NE(html.find(fmt::format("id=\"optimize-seconds\">{:.1f} s<", doc["elapsed_seconds"].get<double>())), std::string::npos);
  OPEN_OR_SKIP(page, open_in_chromium(out / "report.html"));
  EXPECT_EQ(page->console, "");
  EXPECT_NE(page->dom.find("data-ready=\"yes\""), std::string::npos);
  // An optimize.json edited by hand into odd shapes: its odd fields shown as "-", never a crash.
  for (const char* odd : {R"({"candidates": [{"id": "x", "origin": 5, "replay": {"speedup": "fast"}}, 3], "best": {"id": "y"}})",
                          R"({"candidates": 7, "kernel": 3, "rejections": [1]})"}) {
    std::ofstream(out / "optimize.json") << odd;
    const auto again = run_cli({"report", out.string(), "-o", (dir / "odd.html").string()});
    EXPECT_EQ(again.exit_code, 0) << odd << "\n" << again.err;
  }
}

// A folder of rocm-perf autotune (a replay of the SGEMM's recorded landscape at a tenth of it): the
// run's summary with the model that guided it and where the centre of the space was measured, and
// the best so far after each configuration drawn as a curve, the centre's point marked.
TEST(CliReport, AnAutotuneFolderDrawsItsSearch) {
  const auto dir = fresh_dir("report_autotune");
  const std::string space = (source_dir() / "examples/matmul/matmul_space.json").string();
  auto tuned = run_cli({"autotune", "--space", space, "--cmd-template", "true {BM} {BN} {BK} {TM} {TN}", "--metric-regex", "x(1)",
                        "--replay", (source_dir() / "bench/data/matmul_tunable_h100_exhaustive.csv").string(), "--budget", "10%",
                        "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto r = run_cli({"report", (dir / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html = read_text(dir / "out/report.html");
  EXPECT_NE(html.find("id=\"autotune-strategy\">bayes<"), std::string::npos);
  EXPECT_NE(html.find("id=\"autotune-measured\">23 of a budget of 23: "), std::string::npos);
  EXPECT_NE(html.find("<canvas id=\"curve\">"), std::string::npos);
  EXPECT_NE(html.find("id=\"autotune-model\">a Gaussian process, last fitted to 23 configurations<"), std::string::npos);
  const auto autotune = nlohmann::json::parse(read_text(dir / "out/autotune.json"));
  const auto& likeliest = autotune["model"]["likeliest_better"];
  ASSERT_TRUE(likeliest.is_object()) << autotune["model"].dump();
  EXPECT_NE(html.find(fmt::format("id=\"autotune-likeliest\">BM={} BN={} ", likeliest["configuration"]["BM"].get<int>(),
                                  likeliest["configuration"]["BN"].get<int>())),
            std::string::npos);
  EXPECT_NE(html.find(fmt::format(", unmeasured: chance {:.0f} % to be 3 % better, by the process<", 100 * likeliest["chance"].get<double>())),
            std::string::npos);
  const auto& centre = autotune["model"]["centre"];
  ASSERT_TRUE(centre["measured"].is_number()) << centre.dump();
  const std::string measured_at = std::to_string(centre["measured"].get<int>());
  EXPECT_NE(html.find("id=\"autotune-failures\">none<"), std::string::npos);
  EXPECT_NE(html.find("id=\"autotune-centre\">BM=64 BN=64 BK=16 TM=4 TN=4, measured " + measured_at + " of 23 (" +
                      centre["phase"].get<std::string>() + ")<"),
            std::string::npos);
  OPEN_OR_SKIP(page, open_in_chromium(dir / "out/report.html"));
  EXPECT_EQ(page->console, "");
  EXPECT_NE(page->dom.find("data-ready=\"yes\""), std::string::npos);
  EXPECT_NE(page->dom.find("data-points=\"23\""), std::string::npos);
  EXPECT_NE(page->dom.find("data-axis=\"configurations\""), std::string::npos) << "no time budget: against the count";
  EXPECT_NE(page->dom.find("data-centre=\"" + measured_at + "\""), std::string::npos);
  // A count budget re-measures the two best: the best's value is a median, drawn after the curve.
  const auto& best = autotune["best"];
  ASSERT_FALSE(best["remeasured"].empty()) << best.dump();
  EXPECT_NE(html.find(fmt::format(" (the median of {} measurements: {:.6g}, ", best["remeasured"].size() + 1, best["first_value"].get<double>())),
            std::string::npos);
  const std::string drawn = attribute_of_canvas(page->dom, "curve", "data-remeasured");
  ASSERT_FALSE(drawn.empty());
  EXPECT_DOUBLE_EQ(std::stod(drawn), best["value"].get<double>());
}

// A replay of the Triton matmul's measured wall (10 of 54 configurations out of shared memory):
// the report counts the failures by kind, as autotune.json does, and names each configuration's
// values in the space's order of its parameters.
TEST(CliReport, AnAutotuneFolderCountsItsFailures) {
  const auto dir = fresh_dir("report_autotune_failures");
  auto tuned = run_cli({"autotune", "--space", (source_dir() / "tests/gpu/programs/triton_wall_space.json").string(), "--cmd-template",
                        "true {BM} {BN} {BK} {WARPS}", "--metric-regex", "x(1)", "--replay",
                        (source_dir() / "bench/data/triton_wall_h200_exhaustive.csv").string(), "--budget", "30%", "--out",
                        (dir / "out").string(), "--quiet"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto failed = nlohmann::json::parse(read_text(dir / "out/autotune.json"))["failures"]["launch_failed"].get<int>();
  ASSERT_GT(failed, 0) << "the replay's seeds include the corner of largest blocks, which fails";
  ASSERT_EQ(run_cli({"report", (dir / "out").string()}).exit_code, 0);
  const auto html = read_text(dir / "out/report.html");
  EXPECT_NE(html.find("id=\"autotune-failures\">" + std::to_string(failed) + " launch_failed<"), std::string::npos);
  const auto best = html.find("id=\"autotune-best\">BM=");
  ASSERT_NE(best, std::string::npos);
  EXPECT_NE(html.find(" BN=", best), std::string::npos);
  EXPECT_LT(html.find(" BN=", best), html.find(" BK=", best)) << "BM, BN, BK, WARPS: the space's order";
}

// Under a time budget the curve is drawn against the budget's clock (a replay's: the seconds the
// stencil's table recorded), with the budget as a line, so that what a shorter one would have found
// can be read off it.
TEST(CliReport, AnAutotuneFolderWithATimeBudgetDrawsTheCurveAgainstItsClock) {
  const auto dir = fresh_dir("report_autotune_time");
  auto tuned = run_cli({"autotune", "--space", (source_dir() / "examples/stencil/stencil_space.json").string(), "--cmd-template",
                        "true {BX} {BY} {ROWS}", "--metric-regex", "x(1)", "--replay",
                        (source_dir() / "bench/data/stencil_h100_exhaustive.csv").string(), "--budget", "5s", "--out",
                        (dir / "out").string(), "--quiet"});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto curve = nlohmann::json::parse(read_text(dir / "out/autotune.json"))["curve"];
  ASSERT_GE(curve.size(), 2u);
  EXPECT_GT(curve.back()["seconds"].get<double>(), curve.front()["seconds"].get<double>());
  EXPECT_LE(curve.back()["seconds"].get<double>(), 5.0);
  ASSERT_EQ(run_cli({"report", (dir / "out").string()}).exit_code, 0);
  OPEN_OR_SKIP(page, open_in_chromium(dir / "out/report.html"));
  EXPECT_EQ(page->console, "");
  EXPECT_NE(page->dom.find("data-axis=\"seconds\""), std::string::npos);
  EXPECT_NE(page->dom.find("data-points=\"" + std::to_string(curve.size()) + "\""), std::string::npos);
  // Where no round measured the best again, it was measured once, and nothing is drawn after the curve.
  const auto best = nlohmann::json::parse(read_text(dir / "out/autotune.json"))["best"];
  const bool again = !best["remeasured"].empty();
  EXPECT_EQ(read_text(dir / "out/report.html").find(" (measured once)") != std::string::npos, !again);
  EXPECT_EQ(attribute_of_canvas(page->dom, "curve", "data-remeasured").empty(), !again);
}

// A PyTorch program's trace opens where the GPU works (from 225 ms), not on its start-up; the
// whole trace is one click away.
TEST(CliReport, TheTimelineOpensWhereTheGpuWorks) {
  const auto dir = fresh_dir("report_window");
  const auto db = source_dir() / "examples/traces/torch_two_streams_h100.db";
  ASSERT_EQ(run_cli({"analyze", "--out", (dir / "out").string(), db.string()}).exit_code, 0);
  ASSERT_EQ(run_cli({"report", (dir / "out").string(), "--trace", db.string(), "-o", (dir / "page.html").string()}).exit_code, 0);
  OPEN_OR_SKIP(page, open_in_chromium(dir / "page.html"));
  EXPECT_EQ(page->console, "");
  const std::string view = attribute_of_canvas(page->dom, "timeline", "data-view");
  ASSERT_NE(view.find(','), std::string::npos) << view;
  EXPECT_GT(std::stod(view.substr(0, view.find(','))), 220e6) << view;
  OPEN_OR_SKIP(whole, open_in_chromium(dir / "page.html", "#view=0,300"));
  EXPECT_EQ(attribute_of_canvas(whole->dom, "timeline", "data-view").rfind("0,", 0), 0u) << "an asked-for view wins";
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
