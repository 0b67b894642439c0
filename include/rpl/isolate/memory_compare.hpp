#pragma once
// Compares two memory images region by region (replay compare): bitwise, or as floating-point
// elements within a tolerance. The correctness oracle of replays and of the optimizer.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rpl/isolate/snapshot.hpp>

namespace rpl::isolate {

enum class ElementType { bytes, f16, bf16, f32, f64 };
std::optional<ElementType> element_type_from_name(std::string_view name);
std::string_view element_type_name(ElementType type);

struct CompareOptions {
  ElementType type = ElementType::bytes;
  double rtol = 0;  // elements differ when |a - b| > atol + rtol * |b| (NaN equals only NaN)
  double atol = 0;
};

/// The one tolerance rule of replay compare, the optimizer's oracle and the numbers its
/// --check-output compares: value matches reference when they are equal, both NaN, or
/// |value - reference| <= atol + rtol * |reference|.
bool within_tolerance(double value, double reference, double rtol, double atol);

/// Error(bad_input) where options give a tolerance to a bytewise comparison: "--rtol and --atol
/// apply to floating-point elements: give --dtype ...".
void check_tolerances_apply(const CompareOptions& options);

struct RegionComparison {
  MemoryRegion region;
  uint64_t differing = 0;                 // elements (bytes when bitwise)
  uint64_t elements = 0;
  std::optional<uint64_t> first_offset;   // byte offset of the first differing element
  std::string first_a, first_b;           // its values, as text
  double max_abs_error = 0;               // floating-point types only
  double max_rel_error = 0;
};

struct MemoryComparison {
  std::vector<RegionComparison> regions;
  uint64_t bytes = 0;
  bool equal() const;
};

/// Error(bad_input) when the two images do not hold the same regions (base and size), naming the
/// first that differs.
MemoryComparison compare_memory(const MemoryImage& a, const MemoryImage& b, const CompareOptions& options);

}  // namespace rpl::isolate
