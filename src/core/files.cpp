#include <rpl/core/files.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <rpl/core/error.hpp>

namespace rpl {
namespace fs = std::filesystem;

namespace {

// The size of a regular file, or Error(bad_input) saying why path is not one.
std::uintmax_t regular_file_size(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail(Errc::bad_input, "{}: no such file", path.string());
  if (fs::is_directory(status)) fail(Errc::bad_input, "{}: is a directory, not a file", path.string());
  if (!fs::is_regular_file(status)) {
    fail(Errc::bad_input, "{}: not a regular file (a pipe, socket or device cannot be read as one)", path.string());
  }
  const auto size = fs::file_size(path, ec);
  if (ec) fail(Errc::bad_input, "{}: cannot read: {}", path.string(), ec.message());
  return size;
}

}  // namespace

MappedFile::MappedFile(const fs::path& path) {
  size_ = regular_file_size(path);
  if (size_ == 0) fail(Errc::bad_input, "{}: empty file", path.string());
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(Errc::bad_input, "{}: cannot open: {}", path.string(), std::strerror(errno));
  data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    fail(Errc::bad_input, "{}: cannot map: {}", path.string(), std::strerror(err));
  }
}

void MappedFile::release(std::string_view part) const {
  const auto base = reinterpret_cast<uintptr_t>(data_);
  auto begin = reinterpret_cast<uintptr_t>(part.data()), end = begin + part.size();
  if (begin < base || end > base + size_) return;  // not ours: never advise on other memory
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  begin = (begin + page - 1) / page * page;  // whole pages only: neighbours may still be in use
  end = end / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

std::string read_file(const fs::path& path, std::uintmax_t max_bytes) {
  if (regular_file_size(path) > max_bytes) {
    fail(Errc::bad_input, "{}: larger than {} bytes, more than this input can be", path.string(), max_bytes);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(Errc::bad_input, "{}: cannot open: {}", path.string(), std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) fail(Errc::bad_input, "{}: read error", path.string());
  return std::move(buffer).str();
}

TempDir::TempDir(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  fs::path root = (base && *base) ? fs::path(base) : fs::path("/tmp");
  std::string tmpl = (root / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    fail(Errc::run_failed, "{}: cannot create a temporary folder: {}", root.string(), std::strerror(errno));
  }
  path_ = tmpl;
}

TempDir::~TempDir() {
  if (keep_ || path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace rpl
