#pragma once
// File helpers that never leave a half-written file behind.
#include <filesystem>
#include <string>
#include <string_view>

namespace rpl {

/// Writes content to path atomically: temp file in the same folder, fsync, rename, fsync folder.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

/// Reads a whole file; Error(bad_input) naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);

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
