#pragma once
// SHA-256 digests (GLib's GChecksum) of text and of files, as lowercase hex.
#include <filesystem>
#include <string>

namespace rpl::autotune {

std::string sha256_hex(const std::string& data);
/// The digest of a file's bytes; Error(bad_input) when it cannot be read.
std::string sha256_file(const std::filesystem::path& file);

}  // namespace rpl::autotune
