// libFuzzer target: the rocpd reader on arbitrary database files. SQLite reads files, so each input
// is written to one file in a private folder (on /dev/shm where there is one) and read from there.
// Only rpl::Error may come out.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace {
std::filesystem::path input_path() {
  const std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  const auto dir = base / ("rpl-fuzz-rocpd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / "input.db";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path path = input_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    rpl::trace::ReadOptions options;
    options.host_calls = true;  // the widest reading (export's): host API calls too
    rpl::trace::read_rocpd({path}, options);
  } catch (const rpl::Error&) {
  }
  return 0;
}
