// libFuzzer target: the parser of ncu's raw CSV page on arbitrary text. Only rpl::Error may come out.
#include <rpl/backends/ncu_counters.hpp>
#include <rpl/core/error.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> metrics = rpl::backends::default_ncu_metrics();
  try {
    rpl::backends::parse_ncu_csv(std::string(reinterpret_cast<const char*>(data), size), metrics);
  } catch (const rpl::Error&) {
  }
  return 0;
}
