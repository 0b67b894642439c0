// libFuzzer target: the reader of Nsight Compute's CSV pages as a trace (analyze's input), on
// arbitrary files. Only rpl::Error may come out.
#include <rpl/core/error.hpp>
#include <rpl/trace/ncu_reader.hpp>

#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = rpl::fuzz::input_file("ncu-trace", "ncu.csv", data, size);
  try {
    rpl::trace::Trace trace;
    rpl::trace::read_ncu_csv_into(trace, path);
  } catch (const rpl::Error&) {
  }
  return 0;
}
