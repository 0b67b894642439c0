#include <rpl/trace/model.hpp>

#include <sys/mman.h>

#include <array>
#include <cstdint>
#include <utility>

namespace rpl::trace {

void advise_huge_pages(void* data, std::size_t bytes) noexcept {
  constexpr std::uintptr_t kHugePage = 2u << 20;
  if (bytes < 8 * kHugePage) return;
  // Advice applies to whole pages inside the block.
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHugePage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

namespace {
constexpr std::array<std::pair<EventOperationKind, const char*>, 5> kEventOperationNames = {{
    {EventOperationKind::event_record, "EVENT_RECORD"},
    {EventOperationKind::stream_wait_event, "STREAM_WAIT_EVENT"},
    {EventOperationKind::event_synchronize, "EVENT_SYNCHRONIZE"},
    {EventOperationKind::stream_synchronize, "STREAM_SYNCHRONIZE"},
    {EventOperationKind::device_synchronize, "CONTEXT_SYNCHRONIZE"},
}};
constexpr std::array<std::pair<StreamSync, const char*>, 4> kStreamSyncNames = {{
    {StreamSync::unknown, "unknown"},
    {StreamSync::legacy_default, "legacy_default"},
    {StreamSync::blocking, "blocking"},
    {StreamSync::non_blocking, "non_blocking"},
}};
}  // namespace

const char* event_operation_name(EventOperationKind kind) {
  for (const auto& [k, name] : kEventOperationNames) {
    if (k == kind) return name;
  }
  return "UNKNOWN";
}

std::optional<EventOperationKind> event_operation_kind(std::string_view name) {
  for (const auto& [k, known] : kEventOperationNames) {
    if (name == known) return k;
  }
  return std::nullopt;
}

const char* stream_sync_name(StreamSync sync) {
  for (const auto& [k, name] : kStreamSyncNames) {
    if (k == sync) return name;
  }
  return "unknown";
}

std::optional<StreamSync> stream_sync_kind(std::string_view name) {
  for (const auto& [k, known] : kStreamSyncNames) {
    if (name == known) return k;
  }
  return std::nullopt;
}

}  // namespace rpl::trace
