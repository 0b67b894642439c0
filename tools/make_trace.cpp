// rpl-make-trace: writes the scenario traces of tools/trace_scenarios.hpp (tests, benchmark, example).
//   rpl-make-trace SCENARIO OUT.db [--run N]
//   rpl-make-trace benchmark OUT.db [--dispatches N] [--kernels K] [--queues Q]
//   rpl-make-trace dag-benchmark OUT.db [--dispatches N] [--queues STREAMS] [--cross-edges E]
// --rocprofv3-csv FOLDER also writes the trace as rocprofv3's CSV files (FOLDER/1_kernel_trace.csv, ...).
#include <iostream>

#include <CLI/CLI.hpp>

#include <rpl/core/error.hpp>

#include <rpl/trace/rocpd_reader.hpp>

#include "amd_profiler_files.hpp"
#include "trace_scenarios.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Writes rocpd trace scenarios with rocm-perf's writer", "rpl-make-trace"};
  std::string scenario, out, csv;
  int run = 1, kernels = 2000, queues = 8;
  int64_t dispatches = 1'000'000, cross_edges = 100'000;
  app.add_option("scenario", scenario, "benchmark, dag-benchmark, or one of the test scenarios")->required();
  app.add_option("out", out, "database to create")->required();
  app.add_option("--run", run, "run number (1-based)")->check(CLI::Range(1, 1000));
  app.add_option("--dispatches", dispatches, "benchmark: dispatches")->check(CLI::Range(int64_t{1}, int64_t{100'000'000}));
  app.add_option("--kernels", kernels, "benchmark: kernel symbols")->check(CLI::Range(1, 1'000'000));
  app.add_option("--queues", queues, "benchmark: queues (dag-benchmark: streams)")->check(CLI::Range(1, 1024));
  app.add_option("--cross-edges", cross_edges, "dag-benchmark: event waits between streams")
      ->check(CLI::Range(int64_t{0}, int64_t{100'000'000}));
  app.add_option("--rocprofv3-csv", csv, "also write the trace as rocprofv3's CSV files into this folder");
  CLI11_PARSE(app, argc, argv);
  try {
    if (scenario == "benchmark") {
      rpl::tools::write_benchmark_trace(out, dispatches, kernels, queues);
    } else if (scenario == "dag-benchmark") {
      rpl::tools::write_dag_benchmark_trace(out, dispatches, queues, cross_edges);
    } else {
      rpl::tools::write_scenario(scenario, run, out);
    }
    if (!csv.empty()) rpl::tools::write_rocprofv3_csv(rpl::trace::read_rocpd({out}), csv, "1_");
  } catch (const rpl::Error& e) {
    std::cerr << "rpl-make-trace: error: " << e.what() << "\n";
    return rpl::exit_code(e.code());
  }
  return 0;
}
