// libFuzzer target: the rocpd reader on arbitrary database files (SQLite reads files). Only
// rpl::Error may come out.
#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "fuzz_input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = rpl::fuzz::input_file("rocpd", "input.db", data, size);
  try {
    rpl::trace::ReadOptions options;
    options.host_calls = true;  // the widest reading (export's): host API calls too
    rpl::trace::read_rocpd({path}, options);
  } catch (const rpl::Error&) {
  }
  return 0;
}
