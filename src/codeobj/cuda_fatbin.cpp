// Fatbin containers (magic 0xBA55ED50): a 16-byte header, then entries, each with its own header
// and a payload that is PTX (kind 1) or a cubin (kind 2), stored plain, LZ4- or zstd-compressed.
// Entry header fields used (little-endian, offsets from the entry start), as nvcc 13 writes them:
//   +0 u16 kind, +4 u32 header size, +8 u64 payload size, +16 u32 compressed size, +28 u32 arch,
//   +40 u64 flags (0x2000 LZ4, 0x8000 zstd; 0x100000 an arch-specific "a" target such as sm_90a,
//   0x200000 a family "f" target such as sm_100f: seen in nvcc 13's -gencode output), +56 u64
//   uncompressed size.
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
constexpr uint64_t kFlagArchSpecific = 0x100000, kFlagFamily = 0x200000;
constexpr uint64_t kMaxCubinBytes = uint64_t{1} << 30;  // a larger "uncompressed size" is corrupt

template <typename T>
T load(std::string_view bytes, size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

// Every fatbin in data (one per translation unit in an executable, 8-byte aligned).
void find_in_fatbins(std::string_view data, const std::string& origin, std::vector<CubinEntry>& out) {
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
      if (kind == kKindElf) {
        CubinEntry entry;
        entry.payload = data.substr(e + entry_header, payload_size);
        entry.flags = load<uint64_t>(data, e + 40);
        entry.compressed_size = load<uint32_t>(data, e + 16);
        entry.size = load<uint64_t>(data, e + 56);
        entry.arch = "sm_" + std::to_string(load<uint32_t>(data, e + 28));
        if (entry.flags & kFlagArchSpecific) entry.arch += 'a';
        else if (entry.flags & kFlagFamily) entry.arch += 'f';
        entry.origin = where + " (" + entry.arch + ")";
        out.push_back(std::move(entry));
      }
      e += entry_header + payload_size;
    }
    at = (end + 7) & ~size_t{7};
    ++fatbin_index;
  }
}

}  // namespace

std::vector<CubinEntry> find_cubins(std::string_view bytes, const std::string& origin) {
  std::vector<CubinEntry> out;
  if (bytes.size() >= 4 && load<uint32_t>(bytes, 0) == kFatbinMagic) {
    find_in_fatbins(bytes, origin, out);
  } else if (is_elf(bytes)) {
    const ElfImage elf(bytes, origin);
    if (elf.header().e_machine == kEmCuda) {
      CubinEntry entry;
      entry.payload = bytes;
      entry.origin = origin;
      out.push_back(std::move(entry));
    } else if (const ElfSection* section = elf.find(".nv_fatbin")) {
      find_in_fatbins(section->data, origin + " (.nv_fatbin)", out);
    } else {
      fail(Errc::bad_input, "{}: ELF file with no CUDA device code (no .nv_fatbin section)", origin);
    }
  } else {
    fail(Errc::bad_input, "{}: not a CUDA binary (a cubin, a fatbin, or an ELF file with a .nv_fatbin section)", origin);
  }
  return out;
}

Cubin load_cubin(const CubinEntry& entry) {
  Cubin cubin;
  cubin.origin = entry.origin;
  cubin.entry_arch = entry.arch;
  if (!(entry.flags & (kFlagLz4 | kFlagZstd))) {
    cubin.image = entry.payload;
    return cubin;
  }
  const auto& where = entry.origin;
  if (entry.compressed_size == 0 || entry.compressed_size > entry.payload.size()) {
    fail(Errc::bad_input, "{}: compressed size out of range", where);
  }
  // No compressed stream expands past its format's largest ratio (LZ4: 255; zstd: a 4-byte RLE
  // block per 128 KiB), so a claimed size beyond it is corrupt, refused before any allocation.
  const uint64_t ratio = (entry.flags & kFlagZstd) ? 32768 : 255;
  if (entry.size == 0 || entry.size > kMaxCubinBytes || entry.size > entry.compressed_size * ratio + 65536) {
    fail(Errc::bad_input, "{}: uncompressed size {} out of range", where, entry.size);
  }
  if (entry.flags & kFlagZstd) {
    const auto declared = ZSTD_getFrameContentSize(entry.payload.data(), entry.compressed_size);
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != entry.size) {
      fail(Errc::bad_input, "{}: corrupt zstd-compressed cubin (its frame holds {} bytes, the entry says {})", where, declared,
           entry.size);
    }
  }
  cubin.storage.reset(new char[entry.size]);  // uninitialized: only what decompresses is touched
  if (entry.flags & kFlagZstd) {
    const size_t n = ZSTD_decompress(cubin.storage.get(), entry.size, entry.payload.data(), entry.compressed_size);
    if (ZSTD_isError(n) || n != entry.size) fail(Errc::bad_input, "{}: corrupt zstd-compressed cubin", where);
  } else {
    const int n = LZ4_decompress_safe(entry.payload.data(), cubin.storage.get(), static_cast<int>(entry.compressed_size),
                                      static_cast<int>(entry.size));
    if (n < 0 || static_cast<uint64_t>(n) != entry.size) fail(Errc::bad_input, "{}: corrupt LZ4-compressed cubin", where);
  }
  cubin.image = std::string_view(cubin.storage.get(), entry.size);
  return cubin;
}

}  // namespace rpl::codeobj::detail
