#include <rpl/optimize/oracle.hpp>

#include <algorithm>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include <rpl/codeobj/amd_code_object.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/region_store.hpp>

namespace rpl::optimize {
namespace fs = std::filesystem;
namespace {

// A snapshot's file in a derived copy: a hard link where the file system allows (the memory can be
// gigabytes), else a copy.
void link_or_copy(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  fs::remove(to, ec);
  fs::create_hard_link(from, to, ec);
  if (!ec) return;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) fail(Errc::run_failed, "cannot copy {} to {}: {}", from.string(), to.string(), ec.message());
}

// The region with the given ranges poisoned, written as a chunked file in dir.
isolate::MemoryRegion poison_region(const isolate::MemoryImage& image, const isolate::MemoryRegion& r, const fs::path& dir,
                                    const ByteRanges& ranges, unsigned char pattern) {
  std::string bytes = isolate::read_region(image.dir, r);
  for (const auto& [begin, end] : ranges) std::memset(bytes.data() + begin, pattern, end - begin);
  isolate::MemoryRegion out = r;
  out.file = isolate::chunked_region_file_name(r.base);
  out.encoding = "chunks";
  std::error_code ec;
  fs::create_directories((dir / out.file).parent_path(), ec);
  try {
    isolate::write_chunked_region(dir / out.file, bytes);
  } catch (const std::runtime_error& e) {
    fail(Errc::run_failed, "{}", e.what());
  }
  return out;
}

// Appends [begin, end) to ranges, merged with the last range where they touch.
void add_range(ByteRanges& ranges, uint64_t begin, uint64_t end) {
  if (!ranges.empty() && ranges.back().second == begin) {
    ranges.back().second = end;
  } else {
    ranges.emplace_back(begin, end);
  }
}

// The ranges of i in [0, n) where keep(i) holds.
template <typename Keep>
ByteRanges ranges_where(uint64_t n, Keep keep) {
  ByteRanges out;
  for (uint64_t i = 0; i < n; ++i) {
    if (keep(i)) add_range(out, i, i + 1);
  }
  return out;
}

ByteRanges merged(ByteRanges a, const ByteRanges& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  ByteRanges out;
  for (const auto& [begin, end] : a) {
    if (!out.empty() && begin <= out.back().second) {
      out.back().second = std::max(out.back().second, end);
    } else {
      out.emplace_back(begin, end);
    }
  }
  return out;
}

const isolate::MemoryRegion* find_region(const isolate::MemoryImage& image, uint64_t base) {
  for (const auto& r : image.regions) {
    if (r.base == base) return &r;
  }
  return nullptr;
}

// Replays code_object on snapshot with poison, and compares the memory after it with after/.
CorrectnessVerdict replay_and_compare(const isolate::Snapshot& snapshot, const std::string& code_object,
                                      const WrittenBytes& poison, const fs::path& dir, const Replayer& replay,
                                      const isolate::CompareOptions& options, unsigned char pattern = kPoisonByte) {
  CorrectnessVerdict v;
  std::error_code ec;
  fs::remove_all(dir, ec);
  const auto derived = derive_snapshot(snapshot, dir, code_object, poison, pattern);
  try {
    replay(derived.dir, dir / "dump");
  } catch (const Error& e) {
    v.failure = fmt::format("the replay failed: {}", e.what());
    return v;
  }
  const auto reference = isolate::read_memory_image(snapshot.dir / "after");
  v.comparison = isolate::compare_memory(isolate::read_memory_image(dir / "dump"), reference, options);
  v.passed = v.comparison->equal();
  if (!v.passed) v.failure = first_difference(*v.comparison, options);
  return v;
}

}  // namespace

isolate::Snapshot derive_snapshot(const isolate::Snapshot& snapshot, const fs::path& dir, const std::string& code_object,
                                  const WrittenBytes& poison, unsigned char pattern) {
  create_output_folder(dir);
  for (const char* name : {"dispatch.json", "kernarg.bin", "dispatch_packet.bin"}) {
    std::error_code ec;
    if (fs::exists(snapshot.dir / name, ec)) link_or_copy(snapshot.dir / name, dir / name);
  }
  for (const auto& g : snapshot.dispatch.globals) link_or_copy(snapshot.dir / g.file, dir / g.file);
  std::vector<isolate::MemoryRegion> regions;
  for (const auto& r : snapshot.memory.regions) {
    const auto p = poison.find(r.base);
    if (p != poison.end() && !p->second.empty()) {
      regions.push_back(poison_region(snapshot.memory, r, dir, p->second, pattern));
    } else {
      link_or_copy(snapshot.dir / r.file, dir / r.file);
      regions.push_back(r);
    }
  }
  isolate::write_memory_regions(dir, regions);
  if (code_object.empty()) {
    link_or_copy(snapshot.dir / snapshot.dispatch.code_object, dir / snapshot.dispatch.code_object);
  } else {
    write_output_file(dir / snapshot.dispatch.code_object, code_object);
  }
  return isolate::read_snapshot(dir);
}

WrittenBytes differing_bytes(const isolate::MemoryImage& a, const isolate::MemoryImage& b) {
  WrittenBytes out;
  for (const auto& r : a.regions) {
    const auto* other = find_region(b, r.base);
    if (!other || other->size != r.size) continue;
    const std::string x = isolate::read_region(a.dir, r), y = isolate::read_region(b.dir, *other);
    auto ranges = ranges_where(r.size, [&](uint64_t i) { return x[i] != y[i]; });
    if (!ranges.empty()) out[r.base] = std::move(ranges);
  }
  return out;
}

uint64_t byte_count(const WrittenBytes& bytes) {
  uint64_t n = 0;
  for (const auto& [base, ranges] : bytes) {
    for (const auto& [begin, end] : ranges) n += end - begin;
  }
  return n;
}

WrittenBytesSearch find_written_bytes(const isolate::Snapshot& snapshot, const std::string& code_object, const fs::path& work,
                                      const Replayer& replay, uint64_t probe_limit) {
  WrittenBytesSearch search;
  const auto after = isolate::read_memory_image(snapshot.dir / "after");
  // The bytes the captured launch changed were written by it.
  const WrittenBytes changed = differing_bytes(snapshot.memory, after);
  // Bytes it wrote with the values they already held (the launch before computed the same) show
  // only when the region is poisoned first: those the original writes back.
  WrittenBytes found = changed;
  for (const auto& r : snapshot.memory.regions) {
    if (r.size > probe_limit) {
      search.notes.push_back(fmt::format("region {} ({} bytes) is larger than the probe limit; only the bytes the launch "
                                         "changed are poisoned there", isolate::hex_address(r.base), r.size));
      continue;
    }
    const fs::path dir = work / "probe";
    std::error_code ec;
    fs::remove_all(dir, ec);
    const auto derived = derive_snapshot(snapshot, dir, code_object, {{r.base, {{0, r.size}}}});
    try {
      replay(derived.dir, dir / "dump");
    } catch (const Error& e) {
      search.notes.push_back(fmt::format("region {}: the original faulted with it poisoned ({}); it is read, not written",
                                         isolate::hex_address(r.base), e.what()));
      continue;
    }
    const auto dump = isolate::read_memory_image(dir / "dump");
    const auto* dumped = find_region(dump, r.base);
    const auto* reference = find_region(after, r.base);
    if (!dumped || !reference) continue;
    const std::string got = isolate::read_region(dump.dir, *dumped), expected = isolate::read_region(after.dir, *reference);
    // A byte the kernel left alone still holds the poison, unless the reference holds it too.
    const auto written = ranges_where(r.size, [&](uint64_t i) {
      return got[i] == expected[i] && static_cast<unsigned char>(expected[i]) != kPoisonByte;
    });
    if (!written.empty()) found[r.base] = merged(found[r.base], written);
    fs::remove_all(dir, ec);
  }
  // The set holds only if the original still computes the reference with every byte of it poisoned
  // (none is read before it is written); else the changed bytes alone, checked the same way.
  for (const WrittenBytes* candidate : {static_cast<const WrittenBytes*>(&found), &changed}) {
    if (candidate->empty()) continue;
    const auto v = replay_and_compare(snapshot, code_object, *candidate, work / "verify", replay, {});
    std::error_code ec;
    fs::remove_all(work / "verify", ec);
    if (v.passed) {
      search.bytes = *candidate;
      return search;
    }
    search.notes.push_back(fmt::format("poisoning {} bytes changes what the original computes ({}); fewer are poisoned",
                                       byte_count(*candidate), v.failure));
  }
  search.notes.push_back("no byte the kernel writes could be told apart: a candidate that does no work would pass this "
                         "oracle; choose a dispatch whose outputs change (--dispatch)");
  return search;
}

CorrectnessVerdict check_on_oracle(const isolate::Snapshot& snapshot, const std::string& code_object,
                                   const WrittenBytes& written, const fs::path& work, const Replayer& replay,
                                   const isolate::CompareOptions& options, unsigned char pattern) {
  return replay_and_compare(snapshot, code_object, written, work, replay, options, pattern);
}

std::vector<isolate::KernelArgument> kernel_arguments(const isolate::Snapshot& snapshot) {
  const auto& d = snapshot.dispatch;
  if (d.vendor != "amd" || d.arguments.size() != 1) return d.arguments;
  try {
    for (const auto& co : codeobj::read_amd_code_objects(snapshot.dir / d.code_object)) {
      for (const auto& k : co.kernels) {
        if (k.name != d.mangled_name || k.arguments.empty()) continue;
        std::vector<isolate::KernelArgument> out;
        for (const auto& a : k.arguments) {
          if (a.value_kind.rfind("hidden_", 0) == 0 || a.offset < 0 || a.size <= 0) continue;
          out.push_back({static_cast<uint64_t>(a.offset), static_cast<uint64_t>(a.size)});
        }
        return out;
      }
    }
  } catch (const Error&) {
    // A code object that cannot be read tells nothing more than the snapshot's own list.
  }
  return d.arguments;
}

size_t input_shapes(const std::vector<isolate::Snapshot>& snapshots, const std::vector<bool>& pointer) {
  std::set<std::string> shapes;
  for (const auto& s : snapshots) {
    const auto& d = s.dispatch;
    std::string shape = fmt::format("{} {} {} {} {} {};", d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2]);
    const std::string kernarg = read_file(s.dir / "kernarg.bin");
    // The kernel's own arguments only: those a runtime adds after them (AMD's hidden ones) are no shape.
    const auto arguments = kernel_arguments(s);
    for (size_t i = 0; i < arguments.size() && i < pointer.size(); ++i) {
      const auto& a = arguments[i];
      if (pointer[i] || a.offset + a.size > kernarg.size()) continue;
      shape += fmt::format("{}:", i) + kernarg.substr(a.offset, a.size);
    }
    shapes.insert(std::move(shape));
  }
  return shapes.size();
}

std::string first_difference(const isolate::MemoryComparison& comparison, const isolate::CompareOptions& options) {
  const std::string unit = options.type == isolate::ElementType::bytes ? "bytes" : std::string(isolate::element_type_name(options.type)) + " elements";
  for (const auto& r : comparison.regions) {
    if (r.differing == 0) continue;
    std::string text = fmt::format("region {}: {} of {} {} differ", isolate::hex_address(r.region.base), r.differing,
                                   r.elements, unit);
    if (r.first_offset) text += fmt::format(", the first at byte {} ({} here, {} expected)", *r.first_offset, r.first_a, r.first_b);
    return text;
  }
  return "";
}

}  // namespace rpl::optimize
