#pragma once
// Where a user's output path leads, and writing there without damaging what it names. Every file
// and folder a command writes for the user goes through these.
//
//   "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N   written to that open descriptor
//   a symbolic link                                             followed to its target (a dangling
//                                                               one: the target is created)
//   a regular file, or a new name in an existing folder         replaced atomically (temp file
//                                                               beside the target, fsync, rename),
//                                                               the old file's permissions kept
//   a character device (/dev/null, /dev/full), a FIFO           written in place, never replaced
//   a folder, a block device, a socket                          refused
//
// Errors: Error(bad_input) when the path cannot be written at all (a folder, no such folder, no
// permission, a FIFO nobody reads), before anything is written; Error(run_failed) when a write
// fails on the way (ENOSPC on /dev/full, a closed pipe), with nothing left half-replaced.
#include <filesystem>
#include <memory>
#include <ostream>
#include <string_view>

namespace rpl {

/// True when path names our standard output ("-", /dev/stdout, /dev/fd/1, /proc/self/fd/1): a
/// command that writes its file there keeps its own messages off stdout.
bool is_standard_output(const std::filesystem::path& path);

/// One output file, opened where its path leads. Write through stream(), then commit(); destroyed
/// without commit() (an error on the way), a replaced file is left as it was.
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Writes go out as the buffer fills; a failed write throws Error(run_failed) out of the
  /// stream operation itself.
  std::ostream& stream();
  /// Flushes; a replaced file is synced and renamed over its target.
  void commit();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Writes content to path through an OutputFile.
void write_output_file(const std::filesystem::path& path, std::string_view content);

/// path with its symbolic links followed as open() follows them; a dangling link gives the name
/// that would be created. For outputs replaced by rename, which would replace the link itself.
std::filesystem::path follow_output_links(const std::filesystem::path& path);

/// Makes sure dir is a folder that can be written into, creating it (and its parents) when
/// missing; follows a symbolic link to a folder. Error(bad_input) naming it otherwise.
void create_output_folder(const std::filesystem::path& dir);

}  // namespace rpl
