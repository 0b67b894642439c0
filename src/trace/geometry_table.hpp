#pragma once
// Interns launch geometries into Trace::geometries: a reader of any format keeps each distinct
// geometry once.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::trace::detail {

struct GeometryHash {
  size_t operator()(const DispatchGeometry& g) const {
    size_t h = 0;
    for (uint64_t v : std::initializer_list<uint64_t>{g.workgroup[0], g.workgroup[1], g.workgroup[2], g.grid[0], g.grid[1], g.grid[2], g.group_segment_size,
                       g.private_segment_size}) {
      h = (h ^ v) * 0x100000001b3ULL;
    }
    return h;
  }
};
using GeometryIndex = std::unordered_map<DispatchGeometry, uint32_t, GeometryHash>;

/// The index of the geometries a trace already holds: a reader adding a source interns into it.
inline GeometryIndex index_of(const std::vector<DispatchGeometry>& geometries) {
  GeometryIndex index;
  for (uint32_t i = 0; i < geometries.size(); ++i) index.emplace(geometries[i], i);
  return index;
}

// Interns launch geometries into a list; consecutive dispatches often share one.
class GeometryTable {
 public:
  explicit GeometryTable(std::vector<DispatchGeometry>& list, GeometryIndex* index = nullptr)
      : list_(list), index_(index ? *index : own_index_) {}
  uint32_t intern(const DispatchGeometry& g) {
    if (last_ < list_.size() && list_[last_] == g) return last_;
    auto [it, inserted] = index_.try_emplace(g, static_cast<uint32_t>(list_.size()));
    if (inserted) list_.push_back(g);
    last_ = it->second;
    return last_;
  }

 private:
  std::vector<DispatchGeometry>& list_;
  GeometryIndex own_index_;
  GeometryIndex& index_;
  uint32_t last_ = UINT32_MAX;
};

}  // namespace rpl::trace::detail
