#include <rpl/core/output_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <streambuf>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <rpl/core/error.hpp>

namespace rpl {
namespace fs = std::filesystem;
namespace {

std::string last_error() { return std::strerror(errno); }

// How long an output FIFO may wait for its reader: a script may start the reader just after us.
constexpr auto kFifoReaderWait = std::chrono::seconds(10);

// The descriptor that a name stands for: ours ("-", /dev/stdout) or one given by number
// (/dev/fd/63 is how a shell's >(...) process substitution hands a pipe over).
std::optional<int> named_descriptor(const fs::path& path) {
  const std::string p = path.string();
  if (p == "-" || p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (p.size() > prefix.size() && p.compare(0, prefix.size(), prefix) == 0) {
      int fd = -1;
      const char* first = p.data() + prefix.size();
      const char* last = p.data() + p.size();
      auto [end, ec] = std::from_chars(first, last, fd);
      if (ec == std::errc() && end == last && fd >= 0) return fd;
    }
  }
  return std::nullopt;
}

// Follows symbolic links as open() would, stopping at a name that stands for a descriptor; the
// final name may not exist yet (a dangling link's target is where the file is made).
fs::path follow_links(fs::path path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (named_descriptor(path) || ::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) fail(Errc::bad_input, "{}: cannot read the link: {}", path.string(), ec.message());
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  fail(Errc::bad_input, "{}: too many levels of symbolic links", path.string());
}

void write_all(int fd, const char* data, size_t size, const fs::path& shown) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(Errc::run_failed, "{}: cannot write: {}", shown.string(), last_error());
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// An ostream's buffer over a descriptor whose write errors surface as Error(run_failed).
class DescriptorBuffer : public std::streambuf {
 public:
  DescriptorBuffer(int fd, fs::path shown) : fd_(fd), shown_(std::move(shown)) { reset(); }
  void flush_buffer() {
    const char* begin = pbase();
    const auto size = static_cast<size_t>(pptr() - pbase());
    reset();  // before writing: a failed write must not be retried with the same bytes
    write_all(fd_, begin, size, shown_);
  }

 protected:
  int_type overflow(int_type ch) override {
    flush_buffer();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n > epptr() - pptr()) {
      flush_buffer();
      write_all(fd_, s, static_cast<size_t>(n), shown_);
      return n;
    }
    std::memcpy(pptr(), s, static_cast<size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  int sync() override {
    flush_buffer();
    return 0;
  }

 private:
  void reset() { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  int fd_;
  fs::path shown_;
  std::array<char, 1 << 16> buffer_{};
};

// The umask, read without changing it (umask(2) can only set it, racing with other threads).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

// A FIFO opened for writing once a reader has it open: waits a while, never forever.
int open_fifo(const fs::path& path, const fs::path& shown) {
  const auto deadline = std::chrono::steady_clock::now() + kFifoReaderWait;
  while (true) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return fd;
    }
    if (errno != ENXIO) fail(Errc::bad_input, "{}: cannot open the FIFO: {}", shown.string(), last_error());
    if (std::chrono::steady_clock::now() >= deadline) {
      fail(Errc::bad_input, "{}: a FIFO that no process reads (waited {} s); start its reader first", shown.string(),
           std::chrono::duration_cast<std::chrono::seconds>(kFifoReaderWait).count());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

bool is_standard_output(const fs::path& path) { return named_descriptor(path) == 1; }

fs::path follow_output_links(const fs::path& path) { return follow_links(path); }

struct OutputFile::State {
  fs::path shown;        // as the user gave it, for messages
  fs::path target;       // a replaced file: where the rename goes
  std::string temporary; // a replaced file: the new content, beside target
  mode_t mode = 0;       // a replaced file: its permissions
  int fd = -1;
  bool owned = true;     // false for a descriptor we were handed (stdout): never closed
  std::unique_ptr<DescriptorBuffer> buffer;
  std::unique_ptr<std::ostream> stream;
  bool committed = false;

  void open_replacement(const fs::path& file, const struct stat* existing) {
    if (existing && ::access(file.c_str(), W_OK) != 0) {
      fail(Errc::bad_input, "{}: not writable ({}); not replaced", shown.string(), last_error());
    }
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) fail(Errc::bad_input, "{}: no such folder for the output file", dir.string());
    temporary = (dir / fmt::format(".{}.tmp.XXXXXX", file.filename().string())).string();
    fd = ::mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) {
      temporary.clear();
      fail(Errc::bad_input, "{}: cannot create a file in {}: {}", shown.string(), dir.string(), last_error());
    }
    target = file;
    mode = existing ? (existing->st_mode & 07777) : (0666 & ~current_umask());
    // Keep the owner of a file replaced by root; anyone else can only keep their own.
    if (existing && ::fchown(fd, existing->st_uid, existing->st_gid) != 0) {
      [[maybe_unused]] const int ignored = ::fchown(fd, static_cast<uid_t>(-1), existing->st_gid);
    }
  }

  void open(const fs::path& path) {
    if (auto named = named_descriptor(path)) {
      const int flags = ::fcntl(*named, F_GETFL);
      if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
        fail(Errc::bad_input, "{}: descriptor {} is not open for writing", shown.string(), *named);
      }
      fd = *named;
      owned = false;
      return;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      if (errno != ENOENT) fail(Errc::bad_input, "{}: {}", shown.string(), last_error());
      open_replacement(path, nullptr);
    } else if (S_ISREG(st.st_mode)) {
      open_replacement(path, &st);
    } else if (S_ISDIR(st.st_mode)) {
      fail(Errc::bad_input, "{}: is a folder; give the output file's name", shown.string());
    } else if (S_ISFIFO(st.st_mode)) {
      fd = open_fifo(path, shown);
    } else if (S_ISCHR(st.st_mode)) {
      fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) fail(Errc::bad_input, "{}: cannot open the device: {}", shown.string(), last_error());
    } else if (S_ISBLK(st.st_mode)) {
      fail(Errc::bad_input, "{}: is a block device; rocm-perf writes no disks", shown.string());
    } else {
      fail(Errc::bad_input, "{}: is a socket or another special file; give a file, a FIFO or -", shown.string());
    }
  }
};

OutputFile::OutputFile(const fs::path& path) : state_(std::make_unique<State>()) {
  state_->shown = path;
  if (path.empty()) fail(Errc::bad_input, "an empty output path; give a file name, or - for stdout");
  state_->open(follow_links(path));
  state_->buffer = std::make_unique<DescriptorBuffer>(state_->fd, path);
  state_->stream = std::make_unique<std::ostream>(state_->buffer.get());
  state_->stream->exceptions(std::ios::badbit);  // a write error leaves the stream as the Error it is
}

OutputFile::~OutputFile() {
  if (state_->owned && state_->fd >= 0) ::close(state_->fd);
  if (!state_->temporary.empty() && !state_->committed) ::unlink(state_->temporary.c_str());
}

std::ostream& OutputFile::stream() { return *state_->stream; }

void OutputFile::commit() {
  State& s = *state_;
  s.buffer->flush_buffer();
  if (s.temporary.empty()) {
    s.committed = true;
    return;
  }
  if (::fsync(s.fd) != 0) fail(Errc::run_failed, "{}: cannot write: {}", s.shown.string(), last_error());
  ::fchmod(s.fd, s.mode);
  const int closed = ::close(s.fd);
  s.fd = -1;
  if (closed != 0) fail(Errc::run_failed, "{}: cannot write: {}", s.shown.string(), last_error());
  if (::rename(s.temporary.c_str(), s.target.c_str()) != 0) {
    fail(Errc::run_failed, "{}: cannot replace {}: {}", s.shown.string(), s.target.string(), last_error());
  }
  s.committed = true;
  // Make the rename itself durable.
  const fs::path dir = s.target.has_parent_path() ? s.target.parent_path() : fs::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_output_file(const fs::path& path, std::string_view content) {
  OutputFile file(path);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

void create_output_folder(const fs::path& dir) {
  if (dir.empty()) fail(Errc::bad_input, "an empty output folder path; give a folder");
  const fs::path real = follow_links(dir);
  std::error_code ec;
  const auto status = fs::status(real, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    fail(Errc::bad_input, "{}: exists and is not a folder; give another output folder", dir.string());
  }
  if (!fs::exists(status)) {
    fs::create_directories(real, ec);
    if (ec) fail(Errc::bad_input, "{}: cannot create the output folder: {}", dir.string(), ec.message());
  }
  if (::access(real.c_str(), W_OK | X_OK) != 0) {
    fail(Errc::bad_input, "{}: cannot write into this folder: {}", dir.string(), last_error());
  }
}

}  // namespace rpl
