#pragma once
// The vendor-neutral half of a capture: which launch to take, which device memory is live, how the
// argument buffer is laid out, and which globals a code object defines. The injection libraries
// (CUPTI on NVIDIA, HSA tools on AMD) feed these from their callbacks; here they are plain data and
// are tested without a GPU.
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <rpl/isolate/snapshot.hpp>

namespace rpl::isolate {

/// Device allocations live now, by base. An allocation that overlaps live ones replaces them (their
/// free was not seen, so the memory was handed out again).
class AllocationTable {
 public:
  void add(uint64_t base, uint64_t size, std::string kind);
  /// Forgets the allocation starting at base; nothing when none does.
  void remove(uint64_t base);
  /// Sorted by base, with their file names (memory/region_<base>.bin).
  std::vector<MemoryRegion> regions() const;
  uint64_t total_bytes() const;
  size_t size() const { return live_.size(); }

 private:
  struct Allocation {
    uint64_t size;
    std::string kind;
  };
  std::map<uint64_t, Allocation> live_;
};

/// Picks the launch to capture: the index-th launch (from 0) of a kernel whose mangled or demangled
/// name the regular expression finds, counted per kernel.
class DispatchSelector {
 public:
  /// Error(bad_input) when pattern is not an ECMAScript regular expression.
  DispatchSelector(const std::string& pattern, uint64_t index);
  /// Counts one launch of the kernel; its per-kernel index when this is the launch to capture.
  std::optional<uint64_t> on_launch(std::string_view mangled_name);
  /// Every kernel launched so far with its launch count, by name (for "nothing was captured").
  std::map<std::string, uint64_t> launches() const;
  bool matches(std::string_view mangled_name);

 private:
  struct Seen {
    bool matches;
    uint64_t launches = 0;
  };
  Seen& seen(std::string_view mangled_name);
  std::regex pattern_;
  uint64_t index_;
  std::unordered_map<std::string, Seen> seen_;
};

/// The argument buffer of a launch that passed its arguments as an array of pointers (CUDA's
/// kernelParams), laid out by the kernel's parameter offsets and sizes.
std::vector<uint8_t> pack_arguments(const std::vector<KernelArgument>& layout, void* const* values);

/// Pages to reserve for a set of regions: each region rounded out to granularity, overlapping or
/// touching ones merged. Sorted by base.
struct Span {
  uint64_t base = 0;
  uint64_t size = 0;
};
std::vector<Span> reservation_spans(const std::vector<MemoryRegion>& regions, uint64_t granularity);

/// Address ranges to reserve around spans: each span's start rounded down and end rounded up to
/// alignment, grown to at least min_size, overlapping ones merged. (CUDA's driver serves a small
/// reservation from its own pool whatever the hint, and places a large one at the hint rounded up
/// to 32 MiB: seen on an H100, tests/gpu/programs/va_hint_probe.cu.)
std::vector<Span> arena_spans(const std::vector<Span>& spans, uint64_t alignment, uint64_t min_size);

}  // namespace rpl::isolate
