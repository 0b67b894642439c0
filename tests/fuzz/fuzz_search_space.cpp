// libFuzzer target: the autotune search-space parser (JSON, ranges, muParser constraints and
// derived features) on arbitrary text. Only rpl::Error may come out. Spaces are capped at 100,000
// combinations here so that one input stays well within the time limit.
#include <rpl/autotune/search_space.hpp>
#include <rpl/core/error.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    rpl::autotune::parse_search_space(std::string(reinterpret_cast<const char*>(data), size), "space.json", 100'000);
  } catch (const rpl::Error&) {
  }
  return 0;
}
