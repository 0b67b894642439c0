#include <rpl/backends/installed_files.hpp>

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace rpl::backends {
namespace fs = std::filesystem;

namespace {

fs::path executable_dir() {
  char buf[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? fs::path(std::string(buf, static_cast<size_t>(n))).parent_path() : fs::path(".");
}

}  // namespace

std::optional<fs::path> find_installed_file(const char* env, const std::string& name) {
  if (const char* path = std::getenv(env); path && *path) {
    std::error_code ec;
    return fs::exists(path, ec) ? std::optional<fs::path>(fs::absolute(path)) : std::nullopt;
  }
  // The build tree keeps libraries in lib/ beside bin/; an installation in lib/rocm-perf/.
  const fs::path bin = executable_dir();
  for (const fs::path& candidate : {bin / name, bin / "../lib" / name, bin / "../lib/rocm-perf" / name}) {
    std::error_code ec;
    if (fs::exists(candidate, ec)) return fs::canonical(candidate, ec);
  }
  return std::nullopt;
}

}  // namespace rpl::backends
