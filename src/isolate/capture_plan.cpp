#include <rpl/isolate/capture_plan.hpp>

#include <algorithm>
#include <cstring>

#include <rpl/core/demangle.hpp>
#include <rpl/core/error.hpp>

namespace rpl::isolate {

void AllocationTable::add(uint64_t base, uint64_t size, std::string kind) {
  if (size == 0) return;
  const uint64_t end = base + size;
  // Live allocations that overlap [base, end): the first may start below base.
  auto it = live_.lower_bound(base);
  if (it != live_.begin()) {
    auto before = std::prev(it);
    if (before->first + before->second.size > base) it = before;
  }
  while (it != live_.end() && it->first < end) it = live_.erase(it);
  live_[base] = Allocation{size, std::move(kind)};
}

void AllocationTable::remove(uint64_t base) { live_.erase(base); }

std::vector<MemoryRegion> AllocationTable::regions() const {
  std::vector<MemoryRegion> out;
  out.reserve(live_.size());
  for (const auto& [base, a] : live_) out.push_back({base, a.size, a.kind, region_file_name(base)});
  return out;
}

uint64_t AllocationTable::total_bytes() const {
  uint64_t total = 0;
  for (const auto& [base, a] : live_) total += a.size;
  return total;
}

DispatchSelector::DispatchSelector(const std::string& pattern, uint64_t index) : index_(index) {
  try {
    pattern_ = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    fail(Errc::bad_input, "--kernel '{}': not a valid regular expression ({})", pattern, e.what());
  }
}

DispatchSelector::Seen& DispatchSelector::seen(std::string_view mangled_name) {
  auto it = seen_.find(std::string(mangled_name));
  if (it == seen_.end()) {
    const std::string name(mangled_name);
    const bool matches = std::regex_search(name, pattern_) || std::regex_search(demangle(name), pattern_);
    it = seen_.emplace(name, Seen{matches}).first;
  }
  return it->second;
}

bool DispatchSelector::matches(std::string_view mangled_name) { return seen(mangled_name).matches; }

std::optional<uint64_t> DispatchSelector::on_launch(std::string_view mangled_name) {
  Seen& s = seen(mangled_name);
  const uint64_t index = s.launches++;
  if (s.matches && index == index_) return index;
  return std::nullopt;
}

std::map<std::string, uint64_t> DispatchSelector::launches() const {
  std::map<std::string, uint64_t> out;
  for (const auto& [name, s] : seen_) out[name] = s.launches;
  return out;
}

std::vector<uint8_t> pack_arguments(const std::vector<KernelArgument>& layout, void* const* values) {
  uint64_t size = 0;
  for (const auto& a : layout) size = std::max(size, a.offset + a.size);
  std::vector<uint8_t> buffer(size, 0);
  for (size_t i = 0; i < layout.size(); ++i) std::memcpy(buffer.data() + layout[i].offset, values[i], layout[i].size);
  return buffer;
}

namespace {

// Each range rounded out to granularity and grown to min_size, overlapping or touching ones merged.
std::vector<Span> round_and_merge(std::vector<Span> spans, uint64_t granularity, uint64_t min_size) {
  for (auto& s : spans) {
    const uint64_t start = s.base / granularity * granularity;
    const uint64_t end = (s.base + s.size + granularity - 1) / granularity * granularity;
    s = {start, std::max(end - start, min_size)};
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.base < b.base; });
  std::vector<Span> merged;
  for (const auto& s : spans) {
    if (!merged.empty() && merged.back().base + merged.back().size >= s.base) {
      merged.back().size = std::max(merged.back().base + merged.back().size, s.base + s.size) - merged.back().base;
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

}  // namespace

std::vector<Span> reservation_spans(const std::vector<MemoryRegion>& regions, uint64_t granularity) {
  std::vector<Span> spans;
  for (const auto& r : regions) spans.push_back({r.base, r.size});
  return round_and_merge(std::move(spans), granularity, 0);
}

std::vector<Span> arena_spans(const std::vector<Span>& spans, uint64_t alignment, uint64_t min_size) {
  return round_and_merge(spans, alignment, min_size);
}

}  // namespace rpl::isolate
