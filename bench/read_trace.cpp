// The trace reader alone, for bench/trace_formats_benchmark.sh: reads the traces given (any format
// analyze takes) and prints how many dispatches they hold, nothing else, so that its time is the
// reader's and the process's start.
#include <cstdio>
#include <filesystem>
#include <vector>

#include <rpl/core/error.hpp>
#include <rpl/workflow/trace_inputs.hpp>

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs(argv + 1, argv + argc);
  try {
    const auto trace = rpl::workflow::read_trace_inputs(inputs);
    std::printf("%zu\n", trace.dispatches.size());
  } catch (const rpl::Error& e) {
    std::fprintf(stderr, "rpl-read-trace: %s\n", e.what());
    return 2;
  }
  return 0;
}
