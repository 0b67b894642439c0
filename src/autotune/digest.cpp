#include "digest.hpp"

#include <fstream>
#include <memory>

#include <glib.h>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

using Checksum = std::unique_ptr<GChecksum, decltype(&g_checksum_free)>;

Checksum new_checksum() { return Checksum(g_checksum_new(G_CHECKSUM_SHA256), &g_checksum_free); }

}  // namespace

std::string sha256_hex(const std::string& data) {
  auto sum = new_checksum();
  g_checksum_update(sum.get(), reinterpret_cast<const guchar*>(data.data()), static_cast<gssize>(data.size()));
  return g_checksum_get_string(sum.get());
}

std::string sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(Errc::bad_input, "{}: cannot read the file", file.string());
  auto sum = new_checksum();
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    g_checksum_update(sum.get(), reinterpret_cast<const guchar*>(buffer), static_cast<gssize>(in.gcount()));
  }
  return g_checksum_get_string(sum.get());
}

}  // namespace rpl::autotune
