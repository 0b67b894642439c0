#pragma once
// What the readers of API call traces share: host call names interned into Trace::host_call_names
// (each distinct call named once across the whole trace), and a device synchronization call as the
// host wait it is.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include <rpl/trace/model.hpp>

namespace rpl::trace::detail {

class HostCallNames {
 public:
  explicit HostCallNames(Trace& trace) : trace_(trace) {
    for (uint32_t i = 0; i < trace.host_call_names.size(); ++i) index_.emplace(trace.host_call_names[i], i);
  }
  /// The name's index in Trace::host_call_names, added there where new.
  uint32_t intern(std::string_view name) {
    auto [it, added] = index_.try_emplace(std::string(name), static_cast<uint32_t>(trace_.host_call_names.size()));
    if (added) trace_.host_call_names.push_back(it->first);
    return it->second;
  }

 private:
  Trace& trace_;
  std::unordered_map<std::string, uint32_t> index_;
};

/// A device synchronization call (hipDeviceSynchronize, cudaDeviceSynchronize): the host waits for
/// all earlier work of its process, known by the call's correlation id.
inline EventOperation device_synchronization(int32_t source, const std::string& guid, int64_t correlation_id, int64_t start_ns,
                                             int64_t end_ns) {
  EventOperation op;
  op.source = source;
  op.guid = guid;
  op.kind = EventOperationKind::device_synchronize;
  op.correlation_id = correlation_id;
  op.start_ns = start_ns;
  op.end_ns = end_ns;
  return op;
}

}  // namespace rpl::trace::detail
