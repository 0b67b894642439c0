// libFuzzer target: the reader of Nsight Compute's CSV pages as a trace (analyze's input), on
// arbitrary files. Each input is written to one file in a private folder (on /dev/shm where there
// is one) and read from there. Only rpl::Error may come out.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <rpl/core/error.hpp>
#include <rpl/trace/ncu_reader.hpp>

namespace {
std::filesystem::path input_path() {
  const std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  const auto dir = base / ("rpl-fuzz-ncu-trace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / "ncu.csv";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path path = input_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    rpl::trace::Trace trace;
    rpl::trace::read_ncu_csv_into(trace, path);
  } catch (const rpl::Error&) {
  }
  return 0;
}
