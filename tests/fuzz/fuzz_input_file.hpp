#pragma once
// For fuzz targets whose reader takes a file: each input is written to one file in a private folder
// of this process (on /dev/shm where there is one) and read from there.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace rpl::fuzz {

/// The file `name` in this process's folder for `target`, holding the input's bytes.
inline std::filesystem::path input_file(const std::string& target, const std::string& name, const uint8_t* data, size_t size) {
  const std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  const auto path = base / ("rpl-fuzz-" + target + "-" + std::to_string(::getpid())) / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace rpl::fuzz
