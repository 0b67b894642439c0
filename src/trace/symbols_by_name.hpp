#pragma once
// The kernel symbols of one source known by name alone (formats that name a dispatch's kernel
// without a symbol table): the first dispatch of a name makes its symbol.
#include <string>
#include <unordered_map>
#include <utility>

#include <rpl/trace/model.hpp>

namespace rpl::trace::detail {

class SymbolsByName {
 public:
  SymbolsByName(Trace& trace, int16_t source, std::string guid) : trace_(trace), source_(source), guid_(std::move(guid)) {}

  /// The symbol of that name; fill(KernelSymbol&) completes it the first time (registers, ...).
  template <typename Fill>
  int32_t intern(const std::string& name, Fill fill) {
    auto [it, added] = index_.try_emplace(name, static_cast<int32_t>(trace_.symbols.size()));
    if (added) {
      KernelSymbol k;
      k.source = source_;
      k.guid = guid_;
      k.id = static_cast<int64_t>(index_.size());
      k.mangled_name = name;
      fill(k);
      trace_.symbols.push_back(std::move(k));
    }
    return it->second;
  }

 private:
  Trace& trace_;
  int16_t source_;
  std::string guid_;
  std::unordered_map<std::string, int32_t> index_;
};

}  // namespace rpl::trace::detail
