#pragma once
// Interns host call names into Trace::host_call_names: a reader adding a source's calls names each
// distinct call once across the whole trace.
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

}  // namespace rpl::trace::detail
