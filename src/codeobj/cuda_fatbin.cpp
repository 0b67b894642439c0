// Fatbin containers (magic 0xBA55ED50): a 16-byte header, then entries, each with its own header
// and a payload that is PTX (kind 1) or a cubin (kind 2), stored plain, LZ4- or zstd-compressed.
// Entry header fields used (little-endian, offsets from the entry start), as nvcc 13 writes them:
//   +0 u16 kind, +4 u32 header size, +8 u64 payload size, +16 u32 compressed size, +28 u32 arch,
//   +40 u64 flags (0x2000 LZ4, 0x8000 zstd), +56 u64 uncompressed size.
#include <lz4.h>
#include <zstd.h>

#include <cstring>

#include <rpl/core/error.hpp>

#include "cuda_elf.hpp"
#include "elf_image.hpp"

namespace rpl::codeobj::detail {
namespace {

constexpr uint16_t kKindElf = 2;
constexpr uint64_t kFlagLz4 = 0x2000, kFlagZstd = 0x8000;
constexpr uint64_t kMaxCubinBytes = uint64_t{1} << 30;  // a larger "uncompressed size" is corrupt

template <typename T>
T load(std::string_view bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

std::string decompress(std::string_view payload, uint64_t flags, uint64_t compressed, uint64_t size,
                       const std::string& where) {
  if (compressed == 0 || compressed > payload.size()) fail(Errc::bad_input, "{}: compressed size out of range", where);
  if (size == 0 || size > kMaxCubinBytes) fail(Errc::bad_input, "{}: uncompressed size {} out of range", where, size);
  std::string out(size, '\0');
  if (flags & kFlagZstd) {
    const size_t n = ZSTD_decompress(out.data(), out.size(), payload.data(), compressed);
    if (ZSTD_isError(n) || n != size) fail(Errc::bad_input, "{}: corrupt zstd-compressed cubin", where);
  } else {
    const int n = LZ4_decompress_safe(payload.data(), out.data(), static_cast<int>(compressed), static_cast<int>(size));
    if (n < 0 || static_cast<uint64_t>(n) != size) fail(Errc::bad_input, "{}: corrupt LZ4-compressed cubin", where);
  }
  return out;
}

// Every fatbin in data (one per translation unit in an executable, 8-byte aligned).
void read_fatbins(std::string_view data, const std::string& origin, std::vector<Cubin>& out) {
  size_t at = 0;
  int fatbin_index = 0;
  while (at + 16 <= data.size()) {
    if (load<uint32_t>(data, at) != kFatbinMagic) {
      at += 8;
      continue;
    }
    const uint16_t header_size = load<uint16_t>(data, at + 6);
    const uint64_t body_size = load<uint64_t>(data, at + 8);
    const size_t body = at + header_size;
    if (header_size < 16 || body > data.size() || body_size > data.size() - body) {
      fail(Errc::bad_input, "{}: fatbin {} extends past its end (truncated?)", origin, fatbin_index);
    }
    const size_t end = body + body_size;
    for (size_t e = body; e < end;) {
      const std::string where = origin + ": fatbin " + std::to_string(fatbin_index) + " entry at byte " + std::to_string(e);
      if (end - e < 64) fail(Errc::bad_input, "{}: truncated fatbin entry header", where);
      const uint16_t kind = load<uint16_t>(data, e);
      const uint32_t entry_header = load<uint32_t>(data, e + 4);
      const uint64_t payload_size = load<uint64_t>(data, e + 8);
      if (entry_header < 64 || entry_header > end - e || payload_size > end - e - entry_header) {
        fail(Errc::bad_input, "{}: fatbin entry extends past its fatbin", where);
      }
      const std::string_view payload = data.substr(e + entry_header, payload_size);
      const uint64_t flags = load<uint64_t>(data, e + 40);
      if (kind == kKindElf) {
        const std::string label = where + " (sm_" + std::to_string(load<uint32_t>(data, e + 28)) + ")";
        if (flags & (kFlagLz4 | kFlagZstd)) {
          out.push_back({decompress(payload, flags, load<uint32_t>(data, e + 16), load<uint64_t>(data, e + 56), label), label});
        } else {
          out.push_back({std::string(payload), label});
        }
      }
      e += entry_header + payload_size;
    }
    at = (end + 7) & ~size_t{7};
    ++fatbin_index;
  }
}

}  // namespace

std::vector<Cubin> extract_cubins(std::string_view bytes, const std::string& origin) {
  std::vector<Cubin> out;
  if (bytes.size() >= 4 && load<uint32_t>(bytes, 0) == kFatbinMagic) {
    read_fatbins(bytes, origin, out);
  } else if (is_elf(bytes)) {
    const ElfImage elf(bytes, origin);
    if (elf.header().e_machine == kEmCuda) {
      out.push_back({std::string(bytes), origin});
    } else if (const ElfSection* section = elf.find(".nv_fatbin")) {
      read_fatbins(section->data, origin + " (.nv_fatbin)", out);
    } else {
      fail(Errc::bad_input, "{}: ELF file with no CUDA device code (no .nv_fatbin section)", origin);
    }
  } else {
    fail(Errc::bad_input, "{}: not a CUDA binary (a cubin, a fatbin, or an ELF file with a .nv_fatbin section)", origin);
  }
  return out;
}

}  // namespace rpl::codeobj::detail
