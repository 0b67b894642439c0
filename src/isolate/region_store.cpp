#include <rpl/isolate/region_store.hpp>

#include <sys/statvfs.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <zstd.h>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>

namespace rpl::isolate {
namespace fs = std::filesystem;
namespace {

// A chunked region file, little-endian:
//   "RPLCHNK1", u64 region size, u32 chunk bytes, u32 zero, u64 chunk count,
//   chunk count x {u64 offset in the file, u32 stored bytes, u32 encoding}, then the chunks' bytes.
constexpr char kMagic[8] = {'R', 'P', 'L', 'C', 'H', 'N', 'K', '1'};
constexpr uint64_t kHeaderBytes = 32, kEntryBytes = 16;
enum Encoding : uint32_t { kZero = 0, kRaw = 1, kZstd = 2 };
constexpr int kZstdLevel = 1;  // fast: the capture holds the program while it writes

struct Entry {
  uint64_t offset = 0;
  uint32_t stored = 0;
  uint32_t encoding = kZero;
};

}  // namespace

struct RegionFile::Index {
  uint64_t size = 0;
  std::vector<Entry> entries;
};

namespace {

uint64_t chunk_count(uint64_t size) { return (size + kChunkBytes - 1) / kChunkBytes; }
uint64_t chunk_length(uint64_t size, uint64_t i) { return std::min(kChunkBytes, size - i * kChunkBytes); }

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Runs work(i) for i in [0, n) on every core; the first exception is rethrown once all have stopped.
template <typename Work>
void parallel_for(uint64_t n, Work work) {
  const uint64_t threads = std::min<uint64_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (uint64_t i = 0; i < n; ++i) work(i);
    return;
  }
  std::atomic<uint64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  for (uint64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (uint64_t i = next++; i < n; i = next++) {
        try {
          work(i);
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!error) error = std::current_exception();
          next = n;
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

bool all_zero(const char* p, uint64_t n) {
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (load<uint64_t>(p + i) != 0) return false;
  }
  for (; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

RegionFile::Index parse_index(std::string_view file, uint64_t region_size, const fs::path& path) {
  auto bad = [&](const std::string& why) { fail(Errc::bad_input, "{}: {}", path.string(), why); };
  if (file.size() < kHeaderBytes || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) bad("not a chunked region file");
  RegionFile::Index index;
  index.size = load<uint64_t>(file.data() + 8);
  const uint32_t chunk = load<uint32_t>(file.data() + 16);
  const uint64_t count = load<uint64_t>(file.data() + 24);
  if (index.size != region_size) bad(fmt::format("holds {} bytes, but memory_regions.json says {}", index.size, region_size));
  if (chunk != kChunkBytes) bad(fmt::format("chunks of {} bytes; this version reads chunks of {}", chunk, kChunkBytes));
  if (count != chunk_count(region_size) || count > (file.size() - kHeaderBytes) / kEntryBytes) bad("its chunk index is damaged");
  const uint64_t data_start = kHeaderBytes + count * kEntryBytes;
  index.entries.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const char* p = file.data() + kHeaderBytes + i * kEntryBytes;
    Entry& e = index.entries[i];
    e = {load<uint64_t>(p), load<uint32_t>(p + 8), load<uint32_t>(p + 12)};
    const bool placed = e.offset >= data_start && e.offset <= file.size() && e.stored <= file.size() - e.offset;
    const bool sized = e.encoding == kZero ? e.stored == 0
                       : e.encoding == kRaw ? e.stored == chunk_length(region_size, i)
                                            : e.encoding == kZstd && e.stored > 0;
    if (!sized || (e.encoding != kZero && !placed)) bad(fmt::format("chunk {} of its index is damaged", i));
  }
  return index;
}

// Chunk i of a chunked file, decoded into `into` (chunk_length bytes).
void decode_chunk(std::string_view file, const RegionFile::Index& index, uint64_t i, char* into, const fs::path& path) {
  const Entry& e = index.entries[i];
  const uint64_t n = chunk_length(index.size, i);
  if (e.encoding == kZero) {
    std::memset(into, 0, n);
  } else if (e.encoding == kRaw) {
    std::memcpy(into, file.data() + e.offset, n);
  } else {
    const size_t got = ZSTD_decompress(into, n, file.data() + e.offset, e.stored);
    if (ZSTD_isError(got) || got != n) {
      fail(Errc::bad_input, "{}: chunk {} is damaged ({})", path.string(), i, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
    }
  }
}

std::string size_text(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (1ull << 30)) return fmt::format("{:.1f} GiB", b / (1ull << 30));
  return fmt::format("{:.1f} MiB", b / (1ull << 20));
}

}  // namespace

std::string chunked_region_file_name(uint64_t base) { return "memory/region_" + hex_address(base) + ".chunks"; }

ChunkScan scan_chunks(uint64_t size, const ReadRegionBytes& read, std::span<char> staging) {
  const uint64_t per_batch = std::max<uint64_t>(staging.size() / kChunkBytes, 1);
  ChunkScan scan;
  scan.size = size;
  scan.nonzero.assign(chunk_count(size), false);
  std::vector<char> flags(per_batch);
  for (uint64_t first = 0; first < scan.nonzero.size(); first += per_batch) {
    const uint64_t count = std::min<uint64_t>(per_batch, scan.nonzero.size() - first);
    const uint64_t begin = first * kChunkBytes, n = std::min(count * kChunkBytes, size - begin);
    read(begin, n, staging.data());
    parallel_for(count, [&](uint64_t k) { flags[k] = !all_zero(staging.data() + k * kChunkBytes, chunk_length(size, first + k)); });
    for (uint64_t k = 0; k < count; ++k) {
      if (!flags[k]) continue;
      scan.nonzero[first + k] = true;
      scan.nonzero_bytes += chunk_length(size, first + k);
    }
  }
  return scan;
}

StoredBytes write_chunked_region(const fs::path& file, const ChunkScan& scan, const ReadRegionBytes& read, std::span<char> staging) {
  const uint64_t count = scan.nonzero.size(), per_batch = std::max<uint64_t>(staging.size() / kChunkBytes, 1);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  std::string head(kMagic, sizeof kMagic);
  store<uint64_t>(head, scan.size);
  store<uint32_t>(head, static_cast<uint32_t>(kChunkBytes));
  store<uint32_t>(head, 0);
  store<uint64_t>(head, count);
  head.resize(kHeaderBytes + count * kEntryBytes, '\0');  // the index, filled in at the end
  out.write(head.data(), static_cast<std::streamsize>(head.size()));

  std::vector<Entry> entries(count);
  std::vector<std::string> packed(per_batch);
  uint64_t at = head.size();
  StoredBytes sizes;
  for (uint64_t first = 0; first < count; first += per_batch) {
    const uint64_t batch = std::min(per_batch, count - first);
    // Only the stretches that hold data are read.
    for (uint64_t k = 0; k < batch;) {
      if (!scan.nonzero[first + k]) {
        ++k;
        continue;
      }
      uint64_t end = k;
      while (end < batch && scan.nonzero[first + end]) ++end;
      const uint64_t begin = (first + k) * kChunkBytes;
      read(begin, std::min((end - k) * kChunkBytes, scan.size - begin), staging.data() + k * kChunkBytes);
      k = end;
    }
    parallel_for(batch, [&](uint64_t k) {
      packed[k].clear();
      if (!scan.nonzero[first + k]) return;
      const uint64_t n = chunk_length(scan.size, first + k);
      const char* src = staging.data() + k * kChunkBytes;
      std::string& dst = packed[k];
      dst.resize(ZSTD_compressBound(n));
      ZSTD_CCtx* cctx = ZSTD_createCCtx();
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, kZstdLevel);
      ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
      const size_t got = ZSTD_compress2(cctx, dst.data(), dst.size(), src, n);
      ZSTD_freeCCtx(cctx);
      // Where compression saves little, the chunk is kept raw: it then costs nothing to restore.
      if (ZSTD_isError(got) || got > n - n / 32) {
        dst.assign(src, n);
        entries[first + k].encoding = kRaw;
      } else {
        dst.resize(got);
        entries[first + k].encoding = kZstd;
      }
    });
    for (uint64_t k = 0; k < batch; ++k) {
      Entry& e = entries[first + k];
      if (!scan.nonzero[first + k]) {
        sizes.skipped += chunk_length(scan.size, first + k);
        continue;
      }
      e.offset = at;
      e.stored = static_cast<uint32_t>(packed[k].size());
      out.write(packed[k].data(), static_cast<std::streamsize>(packed[k].size()));
      at += packed[k].size();
    }
  }
  std::string index;
  for (const Entry& e : entries) {
    store<uint64_t>(index, e.offset);
    store<uint32_t>(index, e.stored);
    store<uint32_t>(index, e.encoding);
  }
  out.seekp(static_cast<std::streamoff>(kHeaderBytes));
  out.write(index.data(), static_cast<std::streamsize>(index.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
  sizes.stored = at;
  return sizes;
}

StoredBytes write_chunked_region(const fs::path& file, std::string_view bytes) {
  const auto read = [&](uint64_t offset, uint64_t n, char* into) { std::memcpy(into, bytes.data() + offset, n); };
  std::vector<char> staging(64 * kChunkBytes);
  return write_chunked_region(file, scan_chunks(bytes.size(), read, staging), read, staging);
}

RegionFile::RegionFile(const fs::path& dir, const MemoryRegion& region) : path_(dir / region.file), region_(region) {
  if (region.encoding != "chunks") return;
  file_ = std::make_unique<MappedFile>(path_);
  index_ = std::make_unique<Index>(parse_index(file_->bytes(), region.size, path_));
}

RegionFile::~RegionFile() = default;

std::vector<RegionRun> RegionFile::runs() const {
  if (!index_) return {{0, region_.size, false}};
  std::vector<RegionRun> runs;
  for (uint64_t i = 0; i < index_->entries.size(); ++i) {
    const bool zero = index_->entries[i].encoding == kZero;
    const uint64_t n = chunk_length(region_.size, i);
    if (!runs.empty() && runs.back().zero == zero) {
      runs.back().size += n;
    } else {
      runs.push_back({i * kChunkBytes, n, zero});
    }
  }
  return runs;
}

void RegionFile::read(uint64_t offset, uint64_t n, char* into) const {
  if (offset > region_.size || n > region_.size - offset) {
    fail(Errc::internal, "{}: bytes {}..{} asked of a {}-byte region", path_.string(), offset, offset + n, region_.size);
  }
  if (n == 0) return;
  if (!index_) {
    std::ifstream in(path_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(into, static_cast<std::streamsize>(n));
    if (static_cast<uint64_t>(in.gcount()) != n) fail(Errc::bad_input, "{}: cannot be read", path_.string());
    return;
  }
  const uint64_t first = offset / kChunkBytes, last = (offset + n - 1) / kChunkBytes;
  parallel_for(last - first + 1, [&](uint64_t k) {
    const uint64_t i = first + k, chunk_begin = i * kChunkBytes, length = chunk_length(region_.size, i);
    const uint64_t from = std::max(offset, chunk_begin), to = std::min(offset + n, chunk_begin + length);
    if (from == chunk_begin && to == chunk_begin + length) {
      decode_chunk(file_->bytes(), *index_, i, into + (from - offset), path_);
    } else {
      std::vector<char> whole(length);
      decode_chunk(file_->bytes(), *index_, i, whole.data(), path_);
      std::memcpy(into + (from - offset), whole.data() + (from - chunk_begin), to - from);
    }
  });
}

std::string read_region(const fs::path& dir, const MemoryRegion& region) {
  std::string bytes(region.size, '\0');
  RegionFile(dir, region).read(0, region.size, bytes.data());
  return bytes;
}

void check_region_file(const fs::path& dir, const MemoryRegion& region, const std::string& what) {
  const fs::path path = dir / region.file;
  if (region.encoding != "chunks") return check_file_size(path, region.size, what);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail(Errc::bad_input, "{}: missing ({})", path.string(), what);
  RegionFile(dir, region);  // maps it and checks its header and index
}

StoredBytes dump_memory(const fs::path& dir, std::vector<MemoryRegion>& regions,
                        const std::function<void(uint64_t address, uint64_t n, char* into)>& read, std::span<char> staging,
                        double headroom) {
  fs::create_directories(dir / "memory");
  std::vector<ChunkScan> scans;
  uint64_t captured = 0, nonzero = 0;
  for (const auto& r : regions) {
    scans.push_back(scan_chunks(r.size, [&](uint64_t offset, uint64_t n, char* into) { read(r.base + offset, n, into); }, staging));
    captured += r.size;
    nonzero += scans.back().nonzero_bytes;
  }
  struct statvfs fsinfo{};
  if (::statvfs(dir.c_str(), &fsinfo) == 0) {
    const uint64_t free_bytes = static_cast<uint64_t>(fsinfo.f_bavail) * fsinfo.f_frsize;
    const auto needed = static_cast<uint64_t>(static_cast<double>(nonzero) * headroom) + (16ull << 20);
    if (needed > free_bytes) {
      throw std::runtime_error(fmt::format("the snapshot needs up to {} of disk ({} of the {} captured is not zero), and {} has {} free",
                                           size_text(needed), size_text(nonzero), size_text(captured), dir.parent_path().string(),
                                           size_text(free_bytes)));
    }
  }
  StoredBytes total;
  for (size_t i = 0; i < regions.size(); ++i) {
    MemoryRegion& r = regions[i];
    r.file = chunked_region_file_name(r.base);
    r.encoding = "chunks";
    const auto s = write_chunked_region(dir / r.file, scans[i], [&](uint64_t offset, uint64_t n, char* into) { read(r.base + offset, n, into); },
                                        staging);
    total.stored += s.stored;
    total.skipped += s.skipped;
  }
  write_memory_regions(dir, regions);
  return total;
}

}  // namespace rpl::isolate
