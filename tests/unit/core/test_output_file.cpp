#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <future>

#include <gtest/gtest.h>

#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>

#include "test_support.hpp"

namespace rpl {
namespace {
namespace fs = std::filesystem;

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

bool is_char_device(const char* path) {
  struct stat st {};
  return ::lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST(OutputFile, RegularFileIsReplacedWholeKeepingItsPermissions) {
  const auto dir = test::fresh_dir("out-regular");
  const auto file = dir / "out.json";
  write_output_file(file, "first");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  write_output_file(file, "second");
  EXPECT_EQ(test::read_text(file), "second");
  EXPECT_EQ(fs::status(file).permissions(), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(entries(dir), 1);  // no temporary left beside it
}

TEST(OutputFile, AnUncommittedFileLeavesTheOldOneAndNoTemporary) {
  const auto dir = test::fresh_dir("out-uncommitted");
  const auto file = dir / "out.json";
  write_output_file(file, "kept");
  {
    OutputFile out(file);
    out.stream() << "half of a new";
  }
  EXPECT_EQ(test::read_text(file), "kept");
  EXPECT_EQ(entries(dir), 1);
}

TEST(OutputFile, SymlinkIsFollowedAndKept) {
  const auto dir = test::fresh_dir("out-link");
  write_output_file(dir / "target.json", "old");
  fs::create_symlink("target.json", dir / "link.json");
  write_output_file(dir / "link.json", "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(test::read_text(dir / "target.json"), "new");
  EXPECT_EQ(entries(dir), 2);
}

TEST(OutputFile, DanglingSymlinkGetsItsTargetCreated) {
  const auto dir = test::fresh_dir("out-dangling");
  fs::create_directory(dir / "sub");
  fs::create_symlink("sub/made.json", dir / "link.json");
  write_output_file(dir / "link.json", "made");
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(test::read_text(dir / "sub" / "made.json"), "made");
}

TEST(OutputFile, SymlinkLoopIsRefused) {
  const auto dir = test::fresh_dir("out-loop");
  fs::create_symlink("b", dir / "a");
  fs::create_symlink("a", dir / "b");
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { write_output_file(dir / "a", "x"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("too many levels of symbolic links"), std::string::npos) << message;
}

TEST(OutputFile, FifoIsWrittenInPlaceForItsReader) {
  const auto dir = test::fresh_dir("out-fifo");
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&] { return test::read_text(fifo); });
  write_output_file(fifo, std::string(200'000, 'x'));  // more than a pipe holds
  EXPECT_EQ(reader.get(), std::string(200'000, 'x'));
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputFile, FifoWithoutAReaderIsRefusedAfterAWhile) {
  const auto dir = test::fresh_dir("out-fifo-alone");
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { OutputFile out(fifo); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("a FIFO that no process reads"), std::string::npos) << message;
}

TEST(OutputFile, DevNullIsWrittenNotReplaced) {
  write_output_file("/dev/null", "nothing");
  EXPECT_TRUE(is_char_device("/dev/null"));
}

TEST(OutputFile, DevFullIsAWriteErrorAndStaysADevice) {
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { write_output_file("/dev/full", "x"); }, &message), Errc::run_failed);
  EXPECT_EQ(message, "/dev/full: cannot write: No space left on device");
  EXPECT_TRUE(is_char_device("/dev/full"));
}

TEST(OutputFile, ALinkToADeviceWritesTheDevice) {
  const auto dir = test::fresh_dir("out-link-device");
  fs::create_symlink("/dev/full", dir / "full");
  EXPECT_EQ(test::error_code_of([&] { write_output_file(dir / "full", "x"); }), Errc::run_failed);
  EXPECT_TRUE(fs::is_symlink(dir / "full"));
  EXPECT_TRUE(is_char_device("/dev/full"));
}

TEST(OutputFile, DescriptorNamesWriteThatDescriptor) {
  const auto dir = test::fresh_dir("out-fd");
  const int fd = ::open((dir / "through-fd").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  write_output_file("/dev/fd/" + std::to_string(fd), "via fd");
  write_output_file("/proc/self/fd/" + std::to_string(fd), ", twice");  // appended: the offset moves on
  ::close(fd);
  EXPECT_EQ(test::read_text(dir / "through-fd"), "via fd, twice");
  EXPECT_TRUE(is_standard_output("-"));
  EXPECT_TRUE(is_standard_output("/dev/stdout"));
  EXPECT_TRUE(is_standard_output("/proc/self/fd/1"));
  EXPECT_FALSE(is_standard_output("/dev/stderr"));
  EXPECT_FALSE(is_standard_output("out.json"));
}

TEST(OutputFile, ClosedDescriptorIsRefused) {
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { write_output_file("/dev/fd/987", "x"); }, &message), Errc::bad_input);
  EXPECT_EQ(message, "/dev/fd/987: descriptor 987 is not open for writing");
}

TEST(OutputFile, FolderMissingFolderAndBlockDeviceAreRefusedBeforeWriting) {
  const auto dir = test::fresh_dir("out-refused");
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { OutputFile out(dir); }, &message), Errc::bad_input);
  EXPECT_EQ(message, dir.string() + ": is a folder; give the output file's name");
  EXPECT_EQ(test::error_code_of([&] { OutputFile out(dir / "no" / "such" / "file"); }, &message), Errc::bad_input);
  EXPECT_FALSE(fs::exists(dir / "no"));
  EXPECT_EQ(test::error_code_of([&] { OutputFile out(""); }), Errc::bad_input);
  for (const auto& e : fs::directory_iterator("/dev")) {
    if (!e.is_block_file()) continue;
    EXPECT_EQ(test::error_code_of([&] { OutputFile out(e.path()); }, &message), Errc::bad_input);
    EXPECT_NE(message.find("is a block device"), std::string::npos) << message;
    break;
  }
  EXPECT_EQ(entries(dir), 0);
}

TEST(OutputFile, OutputFolderIsMadeFollowedOrRefused) {
  const auto dir = test::fresh_dir("out-folders");
  create_output_folder(dir / "a" / "b");
  EXPECT_TRUE(fs::is_directory(dir / "a" / "b"));
  fs::create_symlink("a", dir / "to-a");
  create_output_folder(dir / "to-a");
  EXPECT_TRUE(fs::is_symlink(dir / "to-a"));
  fs::create_symlink("made-through-link", dir / "dangling");
  create_output_folder(dir / "dangling");
  EXPECT_TRUE(fs::is_directory(dir / "made-through-link"));
  write_output_file(dir / "file", "x");
  std::string message;
  EXPECT_EQ(test::error_code_of([&] { create_output_folder(dir / "file"); }, &message), Errc::bad_input);
  EXPECT_EQ(message, (dir / "file").string() + ": exists and is not a folder; give another output folder");
  EXPECT_EQ(test::read_text(dir / "file"), "x");
  EXPECT_EQ(test::error_code_of([&] { create_output_folder(dir / "file" / "below"); }), Errc::bad_input);
}

TEST(OutputFile, FollowedLinksEndAtTheNameToCreate) {
  const auto dir = test::fresh_dir("out-follow");
  fs::create_symlink("snapshot", dir / "link");
  EXPECT_EQ(follow_output_links(dir / "link"), dir / "snapshot");
  EXPECT_EQ(follow_output_links(dir / "plain"), dir / "plain");
  EXPECT_EQ(follow_output_links("/dev/stdout"), fs::path("/dev/stdout"));
}

}  // namespace
}  // namespace rpl
