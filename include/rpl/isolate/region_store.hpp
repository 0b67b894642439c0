#pragma once
// How a memory region's bytes are kept on disk (docs/snapshot.md). Format 1.0 kept every byte in a
// raw file; from 1.1 a region is a chunked file: the region in 1 MiB chunks, a chunk that is all
// zero (memory a pool reserved and never wrote) stored as nothing, every other chunk compressed
// with zstd (or kept raw where that does not pay), compressed and decompressed on every core.
// Both encodings are read; the captures and dumps write chunks.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <rpl/core/files.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace rpl::isolate {

inline constexpr uint64_t kChunkBytes = 1ull << 20;

/// Copies n bytes of a region, from offset, into `into` (from a device, or from host memory).
using ReadRegionBytes = std::function<void(uint64_t offset, uint64_t n, char* into)>;

/// Which chunks of a region hold a byte that is not zero.
struct ChunkScan {
  uint64_t size = 0;
  std::vector<bool> nonzero;
  uint64_t nonzero_bytes = 0;
};

/// Reads the whole region through staging (a host buffer of at least kChunkBytes, pinned where
/// the device copies faster into pinned memory) and finds its zero chunks.
ChunkScan scan_chunks(uint64_t size, const ReadRegionBytes& read, std::span<char> staging);

struct StoredBytes {
  uint64_t stored = 0;   // on disk
  uint64_t skipped = 0;  // in zero chunks, stored as nothing
};

/// Writes a region's chunked file, reading only its nonzero chunks (through staging).
/// Throws std::runtime_error naming the file when it cannot be written.
StoredBytes write_chunked_region(const std::filesystem::path& file, const ChunkScan& scan, const ReadRegionBytes& read,
                                 std::span<char> staging);
/// The same for bytes in host memory.
StoredBytes write_chunked_region(const std::filesystem::path& file, std::string_view bytes);

/// "memory/region_0x00007f1234500000.chunks"
std::string chunked_region_file_name(uint64_t base);

/// A stretch of a region: all zero, or holding data.
struct RegionRun {
  uint64_t offset = 0;
  uint64_t size = 0;
  bool zero = false;
};

/// A region's file, opened once: a chunked file is mapped and its header and index are checked
/// (Error(bad_input) naming the file); its bytes are decoded on demand.
class RegionFile {
 public:
  RegionFile(const std::filesystem::path& dir, const MemoryRegion& region);
  ~RegionFile();
  RegionFile(const RegionFile&) = delete;
  RegionFile& operator=(const RegionFile&) = delete;
  /// The region's zero and data stretches, adjacent ones of a kind merged (a raw file is one data
  /// stretch).
  std::vector<RegionRun> runs() const;
  /// Bytes [offset, offset + n) into `into`, chunks decoded in parallel. Error(bad_input) naming
  /// the file and the chunk when it is damaged.
  void read(uint64_t offset, uint64_t n, char* into) const;

  struct Index;  // a chunked file's index, defined beside the format in region_store.cpp

 private:
  std::filesystem::path path_;
  MemoryRegion region_;
  std::unique_ptr<MappedFile> file_;  // chunked files only
  std::unique_ptr<Index> index_;
};

/// The whole region.
std::string read_region(const std::filesystem::path& dir, const MemoryRegion& region);

/// Checks a region's file against its record without decoding it (the header and index of a
/// chunked file, the size of a raw one); Error(bad_input) naming the file.
void check_region_file(const std::filesystem::path& dir, const MemoryRegion& region, const std::string& what);

/// Writes dir/memory/ and dir/memory_regions.json for regions read through read(base, n, into):
/// scans every region first, and refuses (std::runtime_error with the figures) when the disk
/// under dir has less free space than the nonzero bytes times headroom (2 before a launch, which
/// leaves room for the dump after it). Sets each region's file and encoding.
StoredBytes dump_memory(const std::filesystem::path& dir, std::vector<MemoryRegion>& regions,
                        const std::function<void(uint64_t address, uint64_t n, char* into)>& read, std::span<char> staging,
                        double headroom);

}  // namespace rpl::isolate
