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

}  // namespace rpl::trace
