// On a real NVIDIA GPU (label gpu): the CUPTI tracer end to end on the testbeds, checked against
// Nsight Compute and cuobjdump. Every test skips, saying why, where there is no GPU.
#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/ncu_counters.hpp>
#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"
#include "trace_event_format.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

#define SKIP_WITHOUT_GPU()                                                                      \
  do {                                                                                          \
    if (auto why = backends::nvidia_gpu_unavailable()) GTEST_SKIP() << "no NVIDIA GPU: " << *why; \
    if (!fs::exists(examples_dir() / "softmax_testbed")) GTEST_SKIP() << "testbeds not built (no CUDA compiler)"; \
  } while (0)

std::string program(const std::string& name) { return (examples_dir() / name).string(); }

struct Profiled {
  CliResult cli;
  fs::path out;
  json doc;
  std::vector<fs::path> databases() const {
    std::vector<fs::path> dbs;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out / ".rocpd_profile", ec)) {
      if (e.path().extension() == ".db") dbs.push_back(e.path());  // runN.log files lie beside them
    }
    std::sort(dbs.begin(), dbs.end());
    return dbs;
  }
};

Profiled profile(const std::vector<std::string>& command, int runs = 1, const std::vector<std::string>& extra = {}) {
  Profiled p;
  p.out = fresh_dir("gpu-profile");
  std::vector<std::string> args = {"profile", "--backend", "cuda", "--json", "--runs", std::to_string(runs), "--out",
                                   p.out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  p.cli = run_cli(args, {}, 300);
  if (p.cli.exit_code == 0) p.doc = json::parse(p.cli.out);
  return p;
}

json analyze(const fs::path& db, const std::string& kernel_regex) {
  auto r = run_cli({"analyze", "--json", "--kernel", kernel_regex, db.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

struct NcuKernel {
  std::vector<double> duration_ns;
  double registers = 0;
  double occupancy_pct = 0;
};

// ncu's measurements per mangled kernel name, at the clocks the program runs with: the counter
// pass's own command line and parser.
std::map<std::string, NcuKernel> ncu_measure(const std::vector<std::string>& command) {
  const std::vector<std::string> metrics = {"gpu__time_duration.sum", "launch__registers_per_thread",
                                            "sm__maximum_warps_per_active_cycle_pct"};
  ProcessOptions p;
  p.argv = backends::ncu_argv(*backends::find_ncu(), metrics, command);
  p.capture_output = true;
  p.timeout = std::chrono::duration<double>(300);
  ProcessResult r = run_process(p);
  EXPECT_TRUE(r.ok()) << r.output;
  std::map<std::string, NcuKernel> kernels;
  for (const auto& sample : backends::parse_ncu_csv(r.output, metrics)) {
    auto& k = kernels[sample.kernel];
    if (sample.metric == metrics[0]) {
      k.duration_ns.push_back(sample.value);
    } else if (sample.metric == metrics[1]) {
      k.registers = sample.value;
    } else {
      k.occupancy_pct = sample.value;
    }
  }
  return kernels;
}

bool have_tool(const char* name) { return find_executable(name).has_value(); }

TEST(NvidiaGpu, TestbedsProfileEndToEnd) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{program("softmax_testbed"), "16384", "1024", "10"}, "softmax_naive"},
      {{program("matmul_tunable"), "2048", "2048", "2048", "--bm", "64", "--bn", "64", "--bk", "16", "--tm", "4", "--tn", "4"},
       "sgemm_tiled"},
      {{program("multistream_dag"), "1000"}, "spin_kernel"},
      {{program("roofline_calibration")}, ""},
  };
  for (const auto& [command, expected] : cases) {
    SCOPED_TRACE(command[0]);
    auto p = profile(command, 2);
    ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
    EXPECT_EQ(schema_errors(p.cli.out, "profile"), "");
    EXPECT_EQ(p.doc["backend"], "cuda");
    EXPECT_EQ(p.doc["gpu"]["vendor"], "NVIDIA");
    EXPECT_EQ(p.doc["gpu"]["architecture"], "sm_90");
    EXPECT_EQ(p.doc["stability"]["runs"], 2);
    EXPECT_FALSE(p.doc["occupancy"].is_null());
    EXPECT_NE(p.doc["kernel"]["name"].get<std::string>().find(expected), std::string::npos);
    std::cout << "profiled " << fs::path(command[0]).filename().string() << ": " << p.doc["kernel"]["name"] << " "
              << p.doc["runtime_ms"] << " ms, cv " << p.doc["stability"]["cv"] << ", occupancy "
              << p.doc["occupancy"]["theoretical"] << " (" << p.doc["occupancy"]["limiter"] << "), GPU "
              << p.doc["gpu"]["product"] << "\n";
  }
}

TEST(NvidiaGpu, DurationsRegistersAndOccupancyAgreeWithNcu) {
  SKIP_WITHOUT_GPU();
  if (!have_tool("ncu")) GTEST_SKIP() << "ncu not found";
  const std::vector<std::vector<std::string>> commands = {
      {program("softmax_testbed"), "16384", "1024", "10"},
      {program("matmul_tunable"), "2048", "2048", "2048", "--bm", "64", "--bn", "64", "--bk", "16", "--tm", "4", "--tn", "4"},
      {program("matmul_tunable"), "2048", "2048", "2048", "--bm", "128", "--bn", "128", "--bk", "8", "--tm", "8", "--tn", "8"},
      {program("matmul_tunable"), "1024", "1024", "1024", "--bm", "32", "--bn", "32", "--bk", "32", "--tm", "2", "--tn", "2"},
      {program("roofline_calibration")},
  };
  int compared = 0;
  for (const auto& command : commands) {
    auto p = profile(command);
    ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
    const fs::path db = p.databases().at(0);
    for (const auto& [mangled, ncu] : ncu_measure(command)) {
      SCOPED_TRACE(mangled);
      const json ours = analyze(db, "^" + mangled + "$");
      ASSERT_FALSE(ours.is_null());
      double ncu_mean = 0;
      for (double d : ncu.duration_ns) ncu_mean += d;
      ncu_mean /= static_cast<double>(ncu.duration_ns.size()) * 1e6;  // ms
      const double traced = ours["runtime_ms"].get<double>();
      const double occupancy = ours["occupancy"]["theoretical"].get<double>();
      std::cout << "ncu check " << mangled.substr(0, 60) << ": traced " << traced << " ms, ncu " << ncu_mean << " ms ("
                << (traced / ncu_mean - 1) * 100 << " %), registers " << ours["resources"]["vgpr_per_thread"] << " vs "
                << ncu.registers << ", occupancy " << occupancy * 100 << " % vs " << ncu.occupancy_pct << " %\n";
      if (ncu_mean > 0.050) {
        EXPECT_NEAR(traced / ncu_mean, 1.0, 0.05);
      }
      EXPECT_EQ(ours["resources"]["vgpr_per_thread"].get<double>(), ncu.registers);
      EXPECT_NEAR(occupancy * 100, ncu.occupancy_pct, 0.5);
      ++compared;
    }
  }
  EXPECT_GE(compared, 7);
}

TEST(NvidiaGpu, RegistersAgreeWithCuobjdump) {
  SKIP_WITHOUT_GPU();
  if (!have_tool("cuobjdump")) GTEST_SKIP() << "cuobjdump not found";
  int compared = 0;
  for (const auto& command : std::vector<std::vector<std::string>>{
           {program("softmax_testbed"), "4096", "256", "2"},
           {program("roofline_calibration"), "1048576", "64"},
           {program("matmul_tunable"), "512", "512", "512", "--bm", "128", "--bn", "64", "--bk", "16", "--tm", "8", "--tn", "4"}}) {
    auto p = profile(command);
    ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
    ProcessOptions dump;
    dump.argv = {"cuobjdump", "--dump-resource-usage", command[0]};
    dump.capture_output = true;
    auto r = run_process(dump);
    ASSERT_TRUE(r.ok()) << r.output;
    std::map<std::string, int> regs;
    std::istringstream lines(r.output);
    std::string function;
    for (std::string line; std::getline(lines, line);) {
      if (auto at = line.find("Function "); at != std::string::npos && line.back() == ':') {
        function = line.substr(at + 9, line.size() - at - 10);
      } else if (auto reg = line.find("REG:"); reg != std::string::npos && !function.empty()) {
        regs[function] = std::stoi(line.substr(reg + 4));
      }
    }
    SQLite::Database db(p.databases().at(0).string(), SQLite::OPEN_READONLY);
    SQLite::Statement st(db, "SELECT kernel_name, arch_vgpr_count FROM rocpd_info_kernel_symbol");
    while (st.executeStep()) {
      const std::string name = st.getColumn(0).getString();
      ASSERT_TRUE(regs.count(name)) << name << " not in cuobjdump's output";
      std::cout << "cuobjdump check " << name.substr(0, 60) << ": traced " << st.getColumn(1).getInt() << ", cuobjdump "
                << regs[name] << " registers\n";
      // A launch allocates at least 16 registers per thread (ncu's launch__registers_per_thread
      // says 16 for kernels compiled to 10 or 14); cuobjdump gives the compiled count.
      EXPECT_EQ(st.getColumn(1).getInt(), std::max(regs[name], 16)) << name;
      ++compared;
    }
  }
  EXPECT_GE(compared, 5);
}

TEST(NvidiaGpu, InspectOfACudaExecutableMatchesTheTrace) {
  SKIP_WITHOUT_GPU();
  if (!have_tool("cuobjdump")) GTEST_SKIP() << "cuobjdump not found";
  auto r = run_cli({"inspect", "--json", "--block", "256", program("softmax_testbed")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(schema_errors(r.out, "inspect"), "");
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["kernels"].size(), 2u);  // softmax_naive, and spin_kernel from the testbeds' header
  auto found = std::find_if(doc["kernels"].begin(), doc["kernels"].end(),
                            [](const json& k) { return k["mangled_name"] == "_Z13softmax_naivePKfPfii"; });
  ASSERT_NE(found, doc["kernels"].end());
  const json& k = *found;
  EXPECT_GT(k["constant_bytes"].get<int>(), 0);
  EXPECT_EQ(k["arch"], "sm_90");
  auto p = profile({program("softmax_testbed"), "4096", "256", "2"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  EXPECT_EQ(k["resources"]["vgpr_per_thread"], p.doc["resources"]["vgpr_per_thread"]);
  EXPECT_EQ(k["occupancy"]["theoretical"], p.doc["occupancy"]["theoretical"]);
  std::cout << "inspect check: " << k["resources"]["vgpr_per_thread"] << " registers, occupancy " << k["occupancy"]["theoretical"]
            << "\n";
}

// The toolkit-free reader (.nv.info) against cuobjdump on every testbed: same kernels, same figures,
// but for the system's 1 KiB in static shared memory on sm_90, which cuobjdump counts and the
// runtime does not (InspectAgreesWithTheCudaRuntime checks the reader against the runtime).
TEST(NvidiaGpu, ElfReaderAgreesWithCuobjdump) {
  SKIP_WITHOUT_GPU();
  const auto cuobjdump = find_executable("cuobjdump", {"/usr/local/cuda/bin"});
  if (!cuobjdump) GTEST_SKIP() << "cuobjdump not found";
  size_t compared = 0;
  for (const char* name : {"softmax_testbed", "roofline_calibration", "matmul_tunable", "multistream_dag",
                           "launch_patterns", "resource_kernels"}) {
    ProcessOptions dump;
    dump.argv = {cuobjdump->string(), "--dump-resource-usage", program(name)};
    dump.capture_output = true;
    auto r = run_process(dump);
    ASSERT_TRUE(r.ok()) << r.output;
    const auto expected = codeobj::parse_cuobjdump_resource_usage(r.output);
    const auto actual = codeobj::read_cuda_kernels(program(name));
    ASSERT_EQ(actual.size(), expected.size()) << name;
    for (size_t i = 0; i < actual.size(); ++i) {
      const auto& a = actual[i];
      const auto& e = expected[i];
      EXPECT_EQ(a.name, e.name) << name;
      EXPECT_EQ(a.arch, e.arch) << a.name;
      EXPECT_EQ(a.registers, e.registers) << a.name;
      const int64_t reserved = std::stoi(a.arch.substr(3)) >= 90 && e.shared_bytes >= 1024 ? 1024 : 0;
      EXPECT_EQ(a.shared_bytes, e.shared_bytes - reserved) << a.name;
      EXPECT_EQ(a.local_bytes, e.local_bytes) << a.name;
      EXPECT_EQ(a.stack_bytes, e.stack_bytes) << a.name;
      EXPECT_EQ(a.constant_bytes, e.constant_bytes) << a.name;
      ++compared;
    }
    std::cout << "elf reader vs cuobjdump: " << name << ", " << actual.size() << " kernels\n";
  }
  EXPECT_GE(compared, 240u);
}

// inspect's figures against what the CUDA runtime says of the same kernels on this GPU
// (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor at 256 threads).
TEST(NvidiaGpu, InspectAgreesWithTheCudaRuntime) {
  SKIP_WITHOUT_GPU();
  ProcessOptions run;
  run.argv = {program("resource_kernels")};
  run.capture_output = true;
  auto r = run_process(run);
  ASSERT_TRUE(r.ok()) << r.output;
  auto inspected = run_cli({"inspect", "--json", "--block", "256", program("resource_kernels")});
  ASSERT_EQ(inspected.exit_code, 0) << inspected.err;
  const json doc = json::parse(inspected.out);
  std::istringstream lines(r.output);
  int compared = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string word, name, skip;
    long registers, shared, local, constant, blocks;
    in >> word >> name >> skip >> registers >> skip >> shared >> skip >> local >> skip >> constant >> skip >> blocks;
    if (word != "kernel") continue;
    std::cout << "runtime: " << line << "\n";
    auto k = std::find_if(doc["kernels"].begin(), doc["kernels"].end(),
                          [&](const json& j) { return j["mangled_name"] == name && j["arch"] == "sm_90"; });
    ASSERT_NE(k, doc["kernels"].end()) << name;
    std::cout << "inspect: " << (*k)["resources"].dump() << " " << (*k)["occupancy"]["active_workgroups_per_cu"] << "\n";
    EXPECT_EQ((*k)["resources"]["vgpr_per_thread"], registers) << name;
    EXPECT_EQ((*k)["resources"]["lds_bytes"], shared) << name;
    EXPECT_EQ((*k)["resources"]["scratch_bytes"], local) << name;
    EXPECT_EQ((*k)["occupancy"]["active_workgroups_per_cu"], blocks) << name;
    ++compared;
  }
  EXPECT_EQ(compared, 5);
}

TEST(NvidiaGpu, CrashMidRunKeepsTheTraceUpToTheCrash) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("softmax_testbed"), "4096", "256", "10", "--crash-after", "3"}, 1, {"--quiet-app"});
  EXPECT_EQ(p.cli.exit_code, 1) << p.cli.err;
  EXPECT_EQ(count_lines(p.cli.err), 1) << p.cli.err;
  EXPECT_NE(p.cli.err.find("killed by signal 11"), std::string::npos) << p.cli.err;
  EXPECT_NE(p.cli.err.find("the trace recorded so far is kept"), std::string::npos) << p.cli.err;
  auto dbs = p.databases();
  ASSERT_EQ(dbs.size(), 1u);
  auto t = trace::read_rocpd(dbs);
  EXPECT_EQ(t.dispatches.size(), 3u);
}

// The tracer's benchmark hook (rpl_trace_pause; tests/gpu/programs/trace_pause.cu): neither the
// kernels nor the event edge made while paused are recorded, and what runs after resuming is.
TEST(NvidiaGpu, APausedTracerRecordsNothingUntilResumed) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("trace_pause")});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  auto t = trace::read_rocpd(p.databases());
  std::map<std::string, int> launches;
  for (const auto& d : t.dispatches) {
    const std::string& name = t.symbols[d.symbol].display_name;
    ++launches[name.substr(0, name.find('('))];
  }
  EXPECT_EQ(launches, (std::map<std::string, int>{{"recorded_after", 2}, {"recorded_before", 4}}));
  const auto dag = json::parse(read_text(p.out / "dag.json"));
  EXPECT_EQ(dag["edges"]["event"], 0) << dag["edges"].dump();
}

TEST(NvidiaGpu, ProgramThatNeverTouchesTheGpuRecordsNothing) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("launch_patterns"), "none"});
  EXPECT_EQ(p.cli.exit_code, 1);
  EXPECT_NE(p.cli.err.find("no kernels were recorded"), std::string::npos) << p.cli.err;
}

TEST(NvidiaGpu, TimeoutKillsTheTracedProgram) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("launch_patterns"), "long", "1000", "10"}, 1, {"--timeout", "3"});
  EXPECT_EQ(p.cli.exit_code, 1);
  EXPECT_LT(p.cli.seconds, 30);
  EXPECT_NE(p.cli.err.find("timed out after 3 s"), std::string::npos) << p.cli.err;
}

TEST(NvidiaGpu, SeveralThreadsAndExitFromAWorkerLoseNothing) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("launch_patterns"), "threads"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  auto t = trace::read_rocpd(p.databases());
  std::set<int64_t> streams;
  size_t add_one = 0;
  for (const auto& d : t.dispatches) {
    if (t.symbols[d.symbol].display_name.find("add_one") != std::string::npos) {
      ++add_one;
      streams.insert(d.stream_id);
    }
  }
  EXPECT_EQ(add_one, 1000u);
  EXPECT_EQ(streams.size(), 4u);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings.front();
}

TEST(NvidiaGpu, GraphAndCooperativeLaunchesAreRecorded) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("launch_patterns"), "graph"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  SQLite::Database db(p.databases().at(0).string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM rocpd_kernel_dispatch").getInt(), 7);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM rocpd_kernel_dispatch WHERE json_extract(extdata, '$.graph_id') > 0").getInt(), 6);
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM rocpd_kernel_dispatch WHERE json_extract(extdata, '$.launch_type') = "
                          "'cooperative'")
                .getInt(),
            1);
}

TEST(NvidiaGpu, CounterPassStoresNcuValuesInTheTrace) {
  SKIP_WITHOUT_GPU();
  if (!have_tool("ncu")) GTEST_SKIP() << "ncu not found";
  auto p = profile({program("softmax_testbed"), "8192", "512", "4"}, 1, {"--counters"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  EXPECT_NE(p.cli.err.find("counters: "), std::string::npos) << p.cli.err;
  SQLite::Database db(p.databases().at(0).string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("SELECT count(DISTINCT k.id) FROM rocpd_kernel_dispatch k JOIN rocpd_pmc_event e ON "
                          "e.event_id = k.event_id").getInt(), 4);
  // ncu's registers per launch equal the tracer's.
  EXPECT_EQ(db.execAndGet("SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON s.id = k.kernel_id "
                          "JOIN rocpd_pmc_event e ON e.event_id = k.event_id JOIN rocpd_info_pmc p ON p.id = e.pmc_id "
                          "WHERE p.name = 'launch__registers_per_thread' AND e.value = s.arch_vgpr_count").getInt(), 4);
  // At the same clocks, ncu's durations and the tracer's agree within 5 %.
  SQLite::Statement st(db, "SELECT k.end - k.start, e.value FROM rocpd_kernel_dispatch k JOIN rocpd_pmc_event e ON "
                           "e.event_id = k.event_id JOIN rocpd_info_pmc p ON p.id = e.pmc_id "
                           "WHERE p.name = 'gpu__time_duration.sum'");
  int rows = 0;
  while (st.executeStep()) {
    ++rows;
    std::cout << "counter pass: traced " << st.getColumn(0).getInt64() << " ns, ncu " << st.getColumn(1).getDouble() << " ns\n";
    EXPECT_NEAR(st.getColumn(0).getDouble() / st.getColumn(1).getDouble(), 1.0, 0.05);
  }
  EXPECT_EQ(rows, 4);
}

TEST(NvidiaGpu, AnotherCuptiClientIsRefused) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("cupti_client")}, 1, {"--quiet-app"});  // the tracer's own line stays in run1.log
  EXPECT_EQ(p.cli.exit_code, 3) << p.cli.err;
  EXPECT_EQ(count_lines(p.cli.err), 1) << p.cli.err;
  EXPECT_NE(p.cli.err.find("the CUPTI tracer refused to run"), std::string::npos) << p.cli.err;
}

// The registers inspect reads for sm_90 and sm_90a code of the same kernels, compiled to differ
// (sm_90 capped at 32 registers), against the driver's own count for each cubin loaded.
TEST(NvidiaGpu, InspectRegistersOfArchVariantsAreTheDriversOwn) {
  SKIP_WITHOUT_GPU();
  const auto nvcc = find_executable("nvcc", {"/usr/local/cuda/bin"});
  if (!nvcc) GTEST_SKIP() << "nvcc not found";
  const fs::path dir = fresh_dir("variants");
  const std::string source = (source_dir() / "tests/gpu/programs/resource_kernels.cu").string();
  for (const auto& [arch, extra] : std::vector<std::pair<std::string, std::string>>{{"sm_90", "--maxrregcount=32"},
                                                                                     {"sm_90a", "--maxrregcount=255"}}) {
    SCOPED_TRACE(arch);
    const fs::path cubin = dir / (arch + ".cubin");
    ProcessOptions compile;
    compile.argv = {nvcc->string(), "-cubin", "-arch=" + arch, extra, "-o", cubin.string(), source};
    compile.capture_output = true;
    ASSERT_TRUE(run_process(compile).ok());
    ProcessOptions driver;
    driver.argv = {program("cubin_registers"), cubin.string()};
    driver.capture_output = true;
    const auto truth = run_process(driver);
    ASSERT_TRUE(truth.ok()) << truth.output;
    std::map<std::string, int> registers;
    std::istringstream lines(truth.output);
    for (std::string name; lines >> name;) lines >> registers[name];
    auto r = run_cli({"inspect", "--json", cubin.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = json::parse(r.out);
    ASSERT_EQ(doc["kernels"].size(), registers.size());
    for (const auto& k : doc["kernels"]) {
      EXPECT_EQ(k["arch"], arch);
      EXPECT_EQ(k["resources"]["vgpr_per_thread"], registers[k["mangled_name"].get<std::string>()]) << k["mangled_name"];
    }
    std::cout << arch << ": " << registers.size() << " kernels, registers equal to cuFuncGetAttribute's\n";
  }
}

// multistream_dag: six spinning kernels on three streams joined by events; the program prints
// the critical path it built (A 2, C 5, D 1 units) and the makespan it measured with events.
TEST(NvidiaGpu, MultistreamDagCriticalPathIsTheDesignedOne) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("multistream_dag"), "2000"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const std::string log = read_text(p.out / ".rocpd_profile" / "run1.log");
  const auto at = log.find("measured_ms: ");
  ASSERT_NE(at, std::string::npos) << log;
  const double measured_ms = std::stod(log.substr(at + 13));
  const std::string text = read_text(p.out / "dag.json");
  EXPECT_EQ(schema_errors(text, "dag"), "");
  const auto dag = json::parse(text);
  EXPECT_EQ(dag["processes"][0]["dependencies"], "recorded");
  EXPECT_EQ(dag["edges"]["inferred"], 0);
  // A->C and C->D; the start event's recording has no earlier work on its stream, so E's wait adds none.
  EXPECT_EQ(dag["edges"]["event"], 2);
  const auto& path = dag["critical_path"]["items"];
  std::vector<double> units;
  std::vector<std::string> via;
  std::set<int64_t> streams;
  for (const auto& step : path) {
    if (step["kind"] != "dispatch") continue;
    units.push_back(step["duration_ns"].get<double>() / 2e6);
    via.push_back(step["via"].is_null() ? "-" : step["via"].get<std::string>());
    streams.insert(step["stream"].get<int64_t>());
  }
  ASSERT_EQ(units.size(), 3u) << path.dump();
  EXPECT_NEAR(units[0], 2, 0.1);  // A
  EXPECT_NEAR(units[1], 5, 0.25);  // C, on the second stream, after A's event
  EXPECT_NEAR(units[2], 1, 0.05);  // D, after C's event
  EXPECT_EQ(via, (std::vector<std::string>{"-", "event", "event"}));
  EXPECT_EQ(streams.size(), 2u);
  const double critical_ms = dag["critical_path_ns"].get<double>() / 1e6;
  EXPECT_NEAR(critical_ms, measured_ms, 0.05 * measured_ms);
  std::cout << "critical path " << critical_ms << " ms, the program measured " << measured_ms << " ms\n";
}

// Work on the legacy default stream between work on a blocking stream (tests/gpu/programs/legacy_stream.cu):
// the DAG joins them by the legacy stream's implicit synchronization, and the critical path of each
// round is A, B, C; the non-blocking stream's kernel runs alongside, joined to nothing.
TEST(NvidiaGpu, TheLegacyDefaultStreamOrdersTheBlockingStreams) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("legacy_stream"), "500", "3"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const std::string text = read_text(p.out / "dag.json");
  EXPECT_EQ(schema_errors(text, "dag"), "");
  const auto dag = json::parse(text);
  EXPECT_EQ(dag["processes"][0]["dependencies"], "recorded");
  EXPECT_EQ(dag["edges"]["legacy_stream"], 6) << dag["edges"].dump();  // A->B and B->C, each round; none to D
  std::vector<std::string> kernels, via;
  for (const auto& step : dag["critical_path"]["items"]) {
    if (step["kind"] != "dispatch") continue;
    kernels.push_back(step["name"].get<std::string>().substr(0, 8));
    via.push_back(step["via"].is_null() ? "-" : step["via"].get<std::string>());
  }
  // The last round's A, B, C at least (earlier rounds join it through the device synchronizations).
  ASSERT_GE(kernels.size(), 3u) << dag["critical_path"].dump();
  const std::vector<std::string> last(kernels.end() - 3, kernels.end());
  EXPECT_EQ(last, (std::vector<std::string>{"legacy_a", "legacy_b", "legacy_c"})) << dag["critical_path"].dump();
  EXPECT_EQ(via[via.size() - 2], "legacy_stream");
  EXPECT_EQ(via.back(), "legacy_stream");
  for (const auto& k : kernels) EXPECT_NE(k, "non_bloc") << "the non-blocking stream's kernel is joined to nothing";
  std::cout << "legacy stream: " << dag["edges"].dump() << ", critical path " << dag["critical_path_ns"] << " ns\n";
}

// A CUDA Graph A -> {B, C} -> D launched three times (tests/gpu/programs/graph_diamond.cu): the
// graph's own edges join each launch, and the critical path takes the long branch C.
TEST(NvidiaGpu, GraphEdgesGiveTheCriticalPathThroughTheLongBranch) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("graph_diamond"), "500", "3"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const std::string text = read_text(p.out / "dag.json");
  EXPECT_EQ(schema_errors(text, "dag"), "");
  const auto dag = json::parse(text);
  EXPECT_EQ(dag["edges"]["graph"], 12) << dag["edges"].dump();  // four per launch
  std::string names;
  for (const auto& step : dag["critical_path"]["items"]) {
    if (step["kind"] == "dispatch") names += step["name"].get<std::string>().substr(6, 1);
  }
  EXPECT_EQ(names, "acdacdacd") << dag["critical_path"].dump();
  const double critical_ms = dag["critical_path_ns"].get<double>() / 1e6;
  EXPECT_NEAR(critical_ms, 3 * 5 * 0.5, 0.75);  // three launches of A, C, D; launch gaps on top
  std::cout << "graph diamond: " << dag["edges"].dump() << ", critical path " << critical_ms << " ms\n";
}

// A CUDA Graph with a memset and a memcpy node (tests/gpu/programs/graph_copies.cu: M -> {K, P} -> C)
// launched three times: the copies carry their graph node too, so the graph's edges join them and
// the critical path is M, K, C per launch.
TEST(NvidiaGpu, GraphCopyAndMemsetNodesAreJoinedByTheGraphsEdges) {
  SKIP_WITHOUT_GPU();
  auto p = profile({program("graph_copies"), "500", "3"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const std::string text = read_text(p.out / "dag.json");
  EXPECT_EQ(schema_errors(text, "dag"), "");
  const auto dag = json::parse(text);
  EXPECT_EQ(dag["edges"]["graph"], 12) << dag["edges"].dump();  // four per launch
  std::string path;
  for (const auto& step : dag["critical_path"]["items"]) {
    path += step["kind"] == "dispatch" ? step["name"].get<std::string>().substr(6, 1) : std::string(step["name"] == "MEMORY_SET" ? "M" : "C");
  }
  EXPECT_EQ(path, "MkCMkCMkC") << dag["critical_path"].dump();
  std::cout << "graph copies: " << dag["edges"].dump() << ", critical path " << path << " "
            << dag["critical_path_ns"].get<double>() / 1e6 << " ms\n";
}

// A PyTorch CUDA graph replayed ten times: its kernels are joined by the graph's edges.
TEST(NvidiaGpu, APytorchCudaGraphKeepsItsEdges) {
  SKIP_WITHOUT_GPU();
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  auto p = profile({"python3", (source_dir() / "tests/gpu/programs/torch_cuda_graph.py").string()}, 1, {"--quiet-app"});
  if (p.cli.exit_code != 0 && p.cli.err.find("torch") != std::string::npos) GTEST_SKIP() << "no PyTorch: " << p.cli.err;
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const auto dag = json::parse(read_text(p.out / "dag.json"));
  EXPECT_GE(dag["edges"]["graph"].get<int>(), 10) << dag["edges"].dump();  // at least one per replay
  std::cout << "torch CUDA graph: " << dag["edges"].dump() << "\n";
}

// A two-rank job (tests/gpu/programs/two_ranks.py: the softmax testbed twice at once, ranks 0 and 1,
// rank 1 doing twice the iterations): each rank's database names it, profile.json gives each rank's
// time of the kernel with rank 1 the slowest, and the exported timeline is a group of lanes per rank.
TEST(NvidiaGpu, EachRankOfAJobHasItsTimeAndItsLanes) {
  SKIP_WITHOUT_GPU();
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  auto p = profile({"python3", (source_dir() / "tests/gpu/programs/two_ranks.py").string(), program("softmax_testbed"), "4096",
                    "1024"},
                   1, {"--quiet-app", "--kernel", "softmax_naive"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const auto& ranks = p.doc["ranks"];
  ASSERT_TRUE(ranks.is_object()) << p.cli.out;
  ASSERT_EQ(ranks["ranks"].size(), 2u) << ranks.dump();
  EXPECT_EQ(ranks["ranks"][0]["rank"], 0);
  EXPECT_EQ(ranks["ranks"][1]["rank"], 1);
  EXPECT_EQ(ranks["slowest_rank"], 1) << ranks.dump();
  const double ratio = ranks["ranks"][1]["per_run_ms"].get<double>() / ranks["ranks"][0]["per_run_ms"].get<double>();
  EXPECT_GT(ratio, 1.5) << ranks.dump();  // twice the dispatches
  EXPECT_LT(ratio, 2.5) << ranks.dump();
  EXPECT_GT(ranks["imbalance_pct"].get<double>(), 20) << ranks.dump();

  std::vector<std::string> args = {"export"};
  for (const auto& db : p.databases()) args.push_back(db.string());
  const auto trace_json = p.out / "trace.json";
  args.insert(args.end(), {"-o", trace_json.string()});
  auto x = run_cli(args);
  ASSERT_EQ(x.exit_code, 0) << x.err;
  std::map<int, std::string> processes;
  const json events = json::parse(read_text(trace_json))["traceEvents"];
  for (const auto& e : events) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  }
  ASSERT_GE(processes.size(), 2u);
  EXPECT_EQ(processes[1].rfind("rank 0: ", 0), 0u) << processes[1];
  EXPECT_EQ(processes[2].rfind("rank 1: ", 0), 0u) << processes[2];
  std::cout << "two ranks: " << ranks.dump() << "\n";
}

// A PyTorch program with two streams joined by events (tests/gpu/programs/torch_two_streams.py),
// profiled twice: diff finds the same kernels in both, and its trace exports to a timeline that
// keeps the trace-event rules, with its event waits as arrows and its synchronizations as API slices.
TEST(NvidiaGpu, ExportAndDiffOfAPytorchProgram) {
  SKIP_WITHOUT_GPU();
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  const std::vector<std::string> program = {"python3", (source_dir() / "tests/gpu/programs/torch_two_streams.py").string()};
  auto first = profile(program, 2, {"--quiet-app"});
  if (first.cli.exit_code != 0 && first.cli.err.find("torch") != std::string::npos) GTEST_SKIP() << "no PyTorch: " << first.cli.err;
  ASSERT_EQ(first.cli.exit_code, 0) << first.cli.err;
  auto second = profile(program, 2, {"--quiet-app"});
  ASSERT_EQ(second.cli.exit_code, 0) << second.cli.err;

  auto d = run_cli({"diff", "--json", first.out.string(), second.out.string()});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(schema_errors(d.out, "diff"), "");
  std::map<std::string, int> verdicts;
  const auto diff = json::parse(d.out);
  for (const auto& k : diff["kernels"]) ++verdicts[k["verdict"].get<std::string>()];
  EXPECT_EQ(verdicts.count("added") + verdicts.count("removed"), 0u) << d.out;

  fs::path db;
  for (const auto& e : fs::directory_iterator(first.out / ".rocpd_profile")) {
    if (e.path().filename().string().rfind("run1_", 0) == 0 && e.path().extension() == ".db") db = e.path();
  }
  ASSERT_FALSE(db.empty());
  const auto trace_json = first.out / "trace.json";
  auto x = run_cli({"export", "--json", db.string(), "-o", trace_json.string()});
  ASSERT_EQ(x.exit_code, 0) << x.err;
  EXPECT_EQ(schema_errors(x.out, "export"), "");
  const std::string text = read_text(trace_json);
  EXPECT_EQ(trace_event_errors(text), "");
  std::map<std::string, int> slices;
  int event_flows = 0;
  const auto timeline = json::parse(text);
  for (const auto& e : timeline["traceEvents"]) {
    if (e["ph"] == "X") ++slices[e["cat"].get<std::string>()];
    if (e["ph"] == "s" && e["name"] == "event") ++event_flows;
  }
  EXPECT_GE(slices["kernel"], 15) << "five rounds of a GEMM, a relu, a multiply and an add";
  EXPECT_GE(slices["api"], 1) << "the synchronizations";
  EXPECT_GE(event_flows, 5) << "the side stream's work joins the main stream each round";
  std::cout << "torch two streams: diff " << nlohmann::json(verdicts).dump() << "; export " << nlohmann::json(slices).dump()
            << " slices, " << event_flows << " event arrows, " << fs::file_size(trace_json) << " bytes\n";
}

// The trace levels on a PyTorch program with two streams joined by events: kernels records no edges
// (the DAG infers them and says why), default records the event waits through callbacks, full adds
// every host API call (export shows them as API slices); the kernels are the same at every level.
TEST(NvidiaGpu, TraceLevelsRecordWhatTheySay) {
  SKIP_WITHOUT_GPU();
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  const std::vector<std::string> program = {"python3", (source_dir() / "tests/gpu/programs/torch_two_streams.py").string()};
  std::map<std::string, json> dags;
  std::map<std::string, std::map<std::string, int>> slices;
  for (const std::string level : {"kernels", "default", "full"}) {
    auto p = profile(program, 1, {"--quiet-app", "--trace-level", level});
    if (p.cli.exit_code != 0 && p.cli.err.find("torch") != std::string::npos) GTEST_SKIP() << "no PyTorch: " << p.cli.err;
    ASSERT_EQ(p.cli.exit_code, 0) << level << ": " << p.cli.err;
    dags[level] = json::parse(read_text(p.out / "dag.json"));
    const auto db = p.databases().at(0);
    auto x = run_cli({"export", db.string(), "-o", (p.out / "trace.json").string()});
    ASSERT_EQ(x.exit_code, 0) << x.err;
    const auto timeline = json::parse(read_text(p.out / "trace.json"));  // a range-for would not keep a temporary alive
    for (const auto& e : timeline["traceEvents"]) {
      if (e["ph"] == "X") ++slices[level][e["cat"].get<std::string>()];
    }
  }
  EXPECT_EQ(dags["kernels"]["edges"]["event"], 0);
  EXPECT_NE(dags["kernels"]["warnings"].dump().find("traced at level kernels"), std::string::npos) << dags["kernels"].dump();
  EXPECT_EQ(slices["kernels"]["api"], 0);
  EXPECT_GE(dags["default"]["edges"]["event"].get<int>(), 5) << "the side stream joins the main stream each round";
  EXPECT_EQ(dags["default"]["edges"]["inferred"], 0);
  EXPECT_EQ(dags["full"]["edges"]["event"], dags["default"]["edges"]["event"]);
  EXPECT_GT(slices["full"]["api"], 10 * slices["default"]["api"]) << "every host call, not only the synchronizations";
  EXPECT_EQ(slices["kernels"]["kernel"], slices["default"]["kernel"]);
  EXPECT_EQ(slices["full"]["kernel"], slices["default"]["kernel"]);
  std::cout << "trace levels: kernels " << json(slices["kernels"]).dump() << ", default " << json(slices["default"]).dump()
            << ", full " << json(slices["full"]).dump() << "\n";
}

// roofline_calibration prints each kernel's exact FLOPs and DRAM bytes; the roofline from the ncu
// pass must agree (FLOPs within 2 %, DRAM bytes of the streaming kernels within 3 %) and place each
// kernel in the regime it was built for.
TEST(NvidiaGpu, RooflineCalibrationAgreesWithTheProgramsExactCounts) {
  SKIP_WITHOUT_GPU();
  if (!backends::find_ncu()) GTEST_SKIP() << "ncu not found";
  // 512 MiB arrays: what stays dirty in the 50 MB L2 when a kernel ends (written back later, so
  // not counted) is then under 3 % of a streaming kernel's traffic.
  auto p = profile({program("roofline_calibration"), "134217728", "4096"}, 1, {"--roofline"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  std::map<std::string, std::pair<double, double>> exact;  // kernel -> (flops, bytes)
  std::istringstream log(read_text(p.out / ".rocpd_profile" / "run1.log"));
  for (std::string word, name, f, b; log >> word;) {
    if (word != "kernel") continue;
    double flops = 0, bytes = 0;
    log >> name >> f >> flops >> b >> bytes;
    exact[name] = {flops, bytes};
  }
  ASSERT_EQ(exact.size(), 3u);
  const std::string text = read_text(p.out / "roofline.json");
  EXPECT_EQ(schema_errors(text, "roofline"), "");
  const auto roofline = json::parse(text);
  std::map<std::string, json> kernels;
  for (const auto& k : roofline["kernels"]) {
    const std::string name = k["name"];
    kernels[name.substr(0, name.find('('))] = k;
  }
  for (const auto& [name, want] : exact) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(kernels.count(name));
    const auto& k = kernels[name];
    ASSERT_EQ(k["measured_dispatches"], 1) << k.dump();
    // The program's arithmetic is FP32. (ptxas also emits HFMA2.MMA as a register move, which ncu
    // counts as FP16 FMAs: they show in fp16 and the total, not in fp32.)
    const double flops = k["flops"]["fp32"].get<double>(), dram = k["bytes"]["dram"].get<double>();
    std::cout << name << ": FP32 FLOPs " << flops << " (exact " << want.first << "; all kinds " << k["total_flops"]
              << ", fp16 " << k["flops"]["fp16"] << "), DRAM bytes " << dram << " (exact "
              << want.second << "), " << k["roofline_position"] << ", " << k["percent_of_roof"] << " % of the "
              << k["binding_ceiling"] << " roof\n";
    EXPECT_NEAR(flops, want.first, 0.02 * want.first);
    if (name != "fma_bound") {
      EXPECT_NEAR(dram, want.second, 0.03 * want.second);
    }
    EXPECT_EQ(k["roofline_position"], name == "fma_bound" ? "compute_bound" : "memory_bound");
  }
  // profile.json carries the dominant kernel's record.
  EXPECT_EQ(p.doc["roofline"]["name"], p.doc["kernel"]["name"]);
  EXPECT_EQ(p.doc["roofline"]["roofline_position"],
            p.doc["kernel"]["name"].get<std::string>().rfind("fma_bound", 0) == 0 ? "compute_bound" : "memory_bound");
}

// A PyTorch program: its bf16 GEMMs come out compute-bound (and their tensor-core FLOPs equal
// 2 n^3 per call), its elementwise arithmetic kernels memory-bound. (torch.randn's Philox kernel is
// neither: random number generation is arithmetic-heavy.)
TEST(NvidiaGpu, PytorchGemmsAreComputeBoundAndElementwiseKernelsMemoryBound) {
  SKIP_WITHOUT_GPU();
  if (!backends::find_ncu()) GTEST_SKIP() << "ncu not found";
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  const std::string script = (source_dir() / "tests/gpu/programs/torch_roofline.py").string();
  auto p = profile({"python3", script}, 1, {"--roofline", "--quiet-app"});
  if (p.cli.exit_code != 0 && p.cli.err.find("torch") != std::string::npos) GTEST_SKIP() << "no PyTorch: " << p.cli.err;
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const auto roofline = json::parse(read_text(p.out / "roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  int gemms = 0, elementwise = 0;
  for (const auto& k : roofline["kernels"]) {
    if (k["measured_dispatches"] == 0 || k["roofline_position"].is_null()) continue;
    const std::string name = k["name"];
    const double tensor = k["flops"]["matrix_fp16"].is_null() ? 0 : k["flops"]["matrix_fp16"].get<double>();
    if (tensor > 1e9) {
      ++gemms;
      const double per_call = tensor / k["measured_dispatches"].get<double>();
      std::cout << "GEMM " << name.substr(0, 60) << ": " << k["roofline_position"] << ", " << k["percent_of_roof"]
                << " % of roof, tensor FLOPs per call " << per_call << " (2 n^3 = " << 2.0 * 4096 * 4096 * 4096 << ")\n";
      EXPECT_EQ(k["roofline_position"], "compute_bound") << name;
      EXPECT_NEAR(per_call, 2.0 * 4096 * 4096 * 4096, 0.02 * 2.0 * 4096 * 4096 * 4096) << name;
    } else if (name.find("vectorized_elementwise_kernel") != std::string::npos) {  // relu, mul, add
      ++elementwise;
      std::cout << "elementwise " << name.substr(0, 60) << ": " << k["roofline_position"] << ", " << k["percent_of_roof"]
                << " % of roof\n";
      EXPECT_EQ(k["roofline_position"], "memory_bound") << name;
    }
  }
  EXPECT_GE(gemms, 1);
  EXPECT_GE(elementwise, 1);
}

// A GEMM of each input type the tensor cores take (tests/gpu/programs/torch_tensor_kinds.py, n =
// 4096, two calls each): each float kind's matrix FLOPs are 2 n^3 a call, in that kind's figure
// and no other, and the GEMM is placed; the int8 GEMM's integer operations are no FLOPs, and it is
// not placed (bench/data/tensor_kinds_h100.txt: ncu's own counters, 2 n^3 a call for every kind).
TEST(NvidiaGpu, EveryTensorKindsGemmCountsTwoNCubedFlopsAndInt8IsNotPlaced) {
  SKIP_WITHOUT_GPU();
  if (!backends::find_ncu()) GTEST_SKIP() << "ncu not found";
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  const std::string script = (source_dir() / "tests/gpu/programs/torch_tensor_kinds.py").string();
  auto p = profile({"python3", script}, 1, {"--roofline"});
  if (p.cli.exit_code != 0 && p.cli.err.find("torch") != std::string::npos) GTEST_SKIP() << "no PyTorch: " << p.cli.err;
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const auto roofline = json::parse(read_text(p.out / "roofline.json"));
  EXPECT_EQ(schema_errors(roofline.dump(), "roofline"), "");
  const double per_call = 2.0 * 4096 * 4096 * 4096;
  std::set<std::string> kinds;
  bool int8 = false;
  for (const auto& k : roofline["kernels"]) {
    const std::string name = k["name"];
    if (k["measured_dispatches"] == 0) continue;
    const double calls = k["measured_dispatches"].get<double>();
    std::string kind;
    for (const auto& [f, v] : k["flops"].items()) {
      if (f.rfind("matrix_", 0) == 0 && v.is_number() && v.get<double>() > 0) {
        EXPECT_TRUE(kind.empty()) << name << ": two matrix kinds";
        kind = f;
        EXPECT_NEAR(v.get<double>() / calls, per_call, 1e-6 * per_call) << name << " " << f;
      }
    }
    if (!kind.empty()) {
      kinds.insert(kind);
      std::cout << kind << " " << name.substr(0, 60) << ": " << k["roofline_position"] << ", " << k["percent_of_roof"] << " % of "
                << k["binding_ceiling"] << "\n";
      EXPECT_FALSE(k["roofline_position"].is_null()) << name;
      EXPECT_LT(k["percent_of_roof"].is_number() ? k["percent_of_roof"].get<double>() : 100, 100) << name;
    }
    if (name.find("i161616gemm_s8") != std::string::npos || name.find("imma") != std::string::npos) {
      int8 = true;
      std::cout << "int8 " << name.substr(0, 60) << ": " << k["missing"].dump() << "\n";
      EXPECT_TRUE(k["roofline_position"].is_null()) << name;
      EXPECT_NE(k["missing"].dump().find("integer matrix work"), std::string::npos) << k["missing"].dump();
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"matrix_fp16", "matrix_tf32", "matrix_fp64", "matrix_fp8"}))
      << "fp16 and bf16 GEMMs share matrix_fp16";
  EXPECT_TRUE(int8) << "no int8 GEMM among the kernels";
}

// --deep: ncu's stall reasons, instruction mix, IPC and branch efficiency of the dominant kernel
// in analysis.json, in the common vocabulary with NVIDIA's own reasons beside it.
TEST(NvidiaGpu, DeepPassGivesStallsAndInstructionMix) {
  SKIP_WITHOUT_GPU();
  if (!backends::find_ncu()) GTEST_SKIP() << "ncu not found";
  auto p = profile({program("softmax_testbed"), "8192", "1024", "3"}, 1, {"--deep", "--roofline"});
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const std::string text = read_text(p.out / "analysis.json");
  EXPECT_EQ(schema_errors(text, "analysis"), "");
  const auto analysis = json::parse(text);
  const auto& s = analysis["stalls"];
  ASSERT_FALSE(s.is_null()) << text;
  EXPECT_EQ(s["measured_dispatches"], 3);
  double stalls = 0, mix = 0;
  for (const auto& [reason, f] : s["stalls"].items()) stalls += f.get<double>();
  for (const auto& [category, f] : s["instruction_mix"].items()) mix += f.get<double>();
  EXPECT_NEAR(stalls, 1.0, 1e-4);  // each fraction rounded to 6 decimals
  EXPECT_NEAR(mix, 1.0, 1e-4);
  EXPECT_EQ(s["instruction_mix"]["tensor"], 0) << "softmax has no tensor work (HFMA2.MMA moves are not)";
  EXPECT_EQ(s["instruction_mix"]["fp16"], 0) << "nor FP16 arithmetic: its HFMAs are HFMA2.MMA moves";
  const auto roofline = json::parse(read_text(p.out / "roofline.json"));
  ASSERT_FALSE(roofline["kernels"].empty());
  EXPECT_EQ(roofline["kernels"][0]["flops"]["fp16"], 0) << roofline["kernels"][0].dump();
  EXPECT_GT(s["vendor_stalls"].size(), 5u);
  EXPECT_GT(s["ipc"].get<double>(), 0);
  EXPECT_GT(s["issue_slot_utilization"].get<double>(), 0);
  EXPECT_GT(s["branch_efficiency"].get<double>(), 0);
  EXPECT_GT(s["instruction_mix"]["load_store"].get<double>(), 0);  // softmax reads and writes rows
  // ncu's source view of its first launch: the samples fall in the three loops over a row (their
  // lines read from the testbed's source, which has moved since this was written).
  EXPECT_TRUE(fs::exists(p.out / ".rocpd_profile/ncu_source/ncu_source.csv"));
  ASSERT_FALSE(s["hot_lines"].empty()) << text;
  std::set<int> loop_lines;
  {
    std::istringstream source(read_text(source_dir() / "examples/softmax/softmax_testbed.cu"));
    int n = 0;
    bool in_kernel = false;  // softmax_naive's body, to its closing brace
    for (std::string line; std::getline(source, line);) {
      ++n;
      if (line.starts_with("__global__ void softmax_naive(")) in_kernel = true;
      if (in_kernel && line == "}") break;
      if (in_kernel && line.find("for (int c = 0; c < cols; ++c)") != std::string::npos) loop_lines.insert(n);
    }
  }
  ASSERT_EQ(loop_lines.size(), 3u);
  EXPECT_TRUE(loop_lines.count(s["hot_lines"][0]["line"].get<int>())) << s["hot_lines"].dump();
  EXPECT_TRUE(s["hot_lines"][0]["file"].get<std::string>().ends_with("softmax_testbed.cu"));
  ASSERT_FALSE(s["hot_instructions"].empty());
  EXPECT_GT(s["hot_instructions"][0]["stall"].get<int64_t>(), 0);
  EXPECT_NE(p.cli.out.find("softmax"), std::string::npos);
  std::cout << "softmax hot lines " << s["hot_lines"].dump() << "\nhottest instruction " << s["hot_instructions"][0].dump() << "\n";
  std::cout << "softmax stalls " << s["stalls"].dump() << "\nmix " << s["instruction_mix"].dump() << "\nipc " << s["ipc"]
            << ", issue " << s["issue_slot_utilization"] << ", branch efficiency " << s["branch_efficiency"]
            << "\nbottleneck " << analysis["classification"]["bottleneck"] << " " << analysis["classification"]["reasons"]
            << "\n";
}

// A Triton kernel under --deep: its hottest source line is the load/add/store line of the Python file.
TEST(NvidiaGpu, DeepPassFindsTheHotLineOfATritonKernel) {
  SKIP_WITHOUT_GPU();
  if (!backends::find_ncu()) GTEST_SKIP() << "ncu not found";
  if (!find_executable("python3")) GTEST_SKIP() << "no python3";
  auto p = profile({"python3", (source_dir() / "tests/gpu/programs/triton_add.py").string()}, 1, {"--deep", "--quiet-app"});
  if (p.cli.exit_code != 0 && p.cli.err.find("triton") != std::string::npos) GTEST_SKIP() << "no Triton: " << p.cli.err;
  ASSERT_EQ(p.cli.exit_code, 0) << p.cli.err;
  const auto analysis = json::parse(read_text(p.out / "analysis.json"));
  EXPECT_EQ(schema_errors(analysis.dump(), "analysis"), "");
  const auto& lines = analysis["stalls"]["hot_lines"];
  ASSERT_FALSE(lines.empty()) << analysis.dump();
  EXPECT_TRUE(lines[0]["file"].get<std::string>().ends_with("triton_add.py"));
  EXPECT_EQ(lines[0]["line"], 11) << lines.dump();
  // The add kernel takes no branch target (ncu writes 0 % of 0): that is no divergence.
  for (const auto& rule : analysis["rules"]) {
    if (rule["rule"] == "divergence_bound") {
      EXPECT_FALSE(rule["fired"].get<bool>()) << rule.dump();
    }
  }
  std::cout << "triton hot lines " << lines.dump() << "\nbranch efficiency " << analysis["stalls"]["branch_efficiency"]
            << "\n";
}

}  // namespace
}  // namespace rpl::test
