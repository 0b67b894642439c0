#pragma once
// File helpers that never leave a half-written file behind.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace rpl {

/// Reads a whole regular file of at most max_bytes; Error(bad_input) naming the path when it cannot
/// be read, is not a regular file (a FIFO or a device would be read forever), or is larger.
std::string read_file(const std::filesystem::path& path, std::uintmax_t max_bytes = std::uintmax_t{1} << 30);

/// A regular file mapped read-only, for inputs too large to copy into memory (a CUDA library can
/// be 500 MB). Error(bad_input) naming the path for a missing, empty, unreadable or special file.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  /// Lets the kernel drop the whole pages of part (a range of bytes()) from memory once read:
  /// reading them again faults them back in from the file. Keeps a large file's reader small.
  void release(std::string_view part) const;

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A fresh private folder under $TMPDIR (or /tmp), removed on destruction unless keep() was called.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace rpl
