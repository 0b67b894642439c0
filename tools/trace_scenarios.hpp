#pragma once
// Realistic rocpd traces built with the project's writer, for tests, the benchmark and the example.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rpl::tools {

/// Names of the scenarios write_scenario knows.
std::vector<std::string> scenario_names();

/// Writes scenario `name` for run `run` (1-based; durations and GUIDs differ per run) to path.
/// Scenarios: mi300x (helpers, several kernels and queues), mi300x-after (the same with softmax 30 %
/// slower and reduce_rows 20 % faster), mi250x (AGPRs, two processes in one
/// file), rx6900xt (wave32), helpers-only, no-dispatches, example (a small softmax run),
/// multistream (fork-join over three streams with events: a known critical path), h100-roofline
/// (three kernels of known FLOPs and bytes with their ncu counter values).
void write_scenario(const std::string& name, int run, const std::filesystem::path& path);

/// One dispatch as the stand-in HSA runtime logs it (tests/fixtures/fake_hsa): its kernel's mangled
/// name, start, end and geometry (grid in work-items).
struct ObservedDispatch {
  std::string mangled_name;
  int64_t start_ns = 0, end_ns = 0;
  std::array<uint32_t, 3> block{1, 1, 1};
  std::array<uint64_t, 3> grid{1, 1, 1};
};

/// Those dispatches as rocprofv3 records them, on one queue of a gfx90a ("Stand-in AMD GPU"): what
/// the stand-in rocprofv3 writes for a program that ran on the stand-in runtime.
void write_observed_trace(const std::filesystem::path& path, int64_t pid, const std::vector<ObservedDispatch>& dispatches);

/// A large trace for the benchmark: dispatches spread over kernels and queues.
void write_benchmark_trace(const std::filesystem::path& path, int64_t dispatches, int kernels, int queues);

/// A large trace for the DAG benchmark: dispatches round-robin over streams, with about
/// cross_edges event waits between streams.
void write_dag_benchmark_trace(const std::filesystem::path& path, int64_t dispatches, int streams, int64_t cross_edges);

}  // namespace rpl::tools
