#include <rpl/isolate/memory_compare.hpp>

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/isolate/region_store.hpp>

namespace rpl::isolate {
namespace {

double half_to_double(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) v = std::ldexp(mantissa, -24);
  else if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else v = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -v : v;
}

double bfloat_to_double(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

size_t element_size(ElementType t) {
  switch (t) {
    case ElementType::bytes: return 1;
    case ElementType::f16:
    case ElementType::bf16: return 2;
    case ElementType::f32: return 4;
    case ElementType::f64: return 8;
  }
  return 1;
}

// Elements in n bytes: a ragged tail is compared bytewise, so each of its bytes counts as one.
uint64_t element_count(uint64_t n, ElementType t) { return n / element_size(t) + n % element_size(t); }

double element_value(ElementType t, const char* p) {
  switch (t) {
    case ElementType::f16: { uint16_t h; std::memcpy(&h, p, 2); return half_to_double(h); }
    case ElementType::bf16: { uint16_t h; std::memcpy(&h, p, 2); return bfloat_to_double(h); }
    case ElementType::f32: { float f; std::memcpy(&f, p, 4); return f; }
    case ElementType::f64: { double d; std::memcpy(&d, p, 8); return d; }
    case ElementType::bytes: return static_cast<unsigned char>(*p);
  }
  return 0;
}

// Compares a stretch of a region that starts at byte `start` (a multiple of every element size).
void compare_stretch(std::string_view a, std::string_view b, uint64_t start, const CompareOptions& o, RegionComparison& out) {
  const size_t es = element_size(o.type);
  const size_t whole = a.size() / es * es;
  out.elements += element_count(a.size(), o.type);
  auto note_first = [&](uint64_t offset, std::string va, std::string vb) {
    if (out.first_offset) return;
    out.first_offset = start + offset;
    out.first_a = std::move(va);
    out.first_b = std::move(vb);
  };
  if (o.type == ElementType::bytes) {
    // memcmp finds equal stretches fast; only differing chunks are walked byte by byte.
    constexpr size_t chunk = 1 << 16;
    for (size_t at = 0; at < a.size(); at += chunk) {
      const size_t n = std::min(chunk, a.size() - at);
      if (std::memcmp(a.data() + at, b.data() + at, n) == 0) continue;
      for (size_t i = at; i < at + n; ++i) {
        if (a[i] == b[i]) continue;
        ++out.differing;
        note_first(i, fmt::format("0x{:02x}", static_cast<unsigned char>(a[i])), fmt::format("0x{:02x}", static_cast<unsigned char>(b[i])));
      }
    }
    return;
  }
  for (size_t i = 0; i < whole; i += es) {
    if (std::memcmp(a.data() + i, b.data() + i, es) == 0) continue;
    const double x = element_value(o.type, a.data() + i), y = element_value(o.type, b.data() + i);
    if (std::isnan(x) && std::isnan(y)) continue;
    const double diff = std::fabs(x - y);
    const bool same = within_tolerance(x, y, o.rtol, o.atol);
    if (std::isfinite(diff)) {
      out.max_abs_error = std::max(out.max_abs_error, diff);
      if (y != 0) out.max_rel_error = std::max(out.max_rel_error, diff / std::fabs(y));
    }
    if (same) continue;
    ++out.differing;
    note_first(i, fmt::format("{:.9g}", x), fmt::format("{:.9g}", y));
  }
  for (size_t i = whole; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    ++out.differing;
    note_first(i, fmt::format("0x{:02x}", static_cast<unsigned char>(a[i])), fmt::format("0x{:02x}", static_cast<unsigned char>(b[i])));
  }
}

// Whether [begin, end) lies in zero stretches only.
bool all_zero(const std::vector<RegionRun>& runs, uint64_t begin, uint64_t end) {
  for (const auto& run : runs) {
    if (run.offset < end && run.offset + run.size > begin && !run.zero) return false;
  }
  return true;
}

// A region compared a window at a time, so that neither needs to fit in memory; windows that are
// zero in both (memory nobody wrote) are equal without being decoded.
void compare_region(const MemoryImage& a, const MemoryRegion& ra, const MemoryImage& b, const MemoryRegion& rb,
                    const CompareOptions& o, RegionComparison& out) {
  constexpr uint64_t kWindow = 64 * kChunkBytes;
  const RegionFile fa(a.dir, ra), fb(b.dir, rb);
  const auto runs_a = fa.runs(), runs_b = fb.runs();
  std::string wa, wb;
  for (uint64_t at = 0; at < ra.size; at += kWindow) {
    const uint64_t n = std::min(kWindow, ra.size - at);
    if (all_zero(runs_a, at, at + n) && all_zero(runs_b, at, at + n)) {
      out.elements += element_count(n, o.type);
      continue;
    }
    wa.resize(n);
    wb.resize(n);
    fa.read(at, n, wa.data());
    fb.read(at, n, wb.data());
    compare_stretch(wa, wb, at, o, out);
  }
}

}  // namespace

std::optional<ElementType> element_type_from_name(std::string_view name) {
  for (ElementType t : {ElementType::bytes, ElementType::f16, ElementType::bf16, ElementType::f32, ElementType::f64}) {
    if (element_type_name(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view element_type_name(ElementType type) {
  switch (type) {
    case ElementType::bytes: return "bytes";
    case ElementType::f16: return "f16";
    case ElementType::bf16: return "bf16";
    case ElementType::f32: return "f32";
    case ElementType::f64: return "f64";
  }
  return "bytes";
}

bool MemoryComparison::equal() const {
  for (const auto& r : regions) {
    if (r.differing) return false;
  }
  return true;
}

bool within_tolerance(double value, double reference, double rtol, double atol) {
  if (value == reference || (std::isnan(value) && std::isnan(reference))) return true;
  const double diff = std::fabs(value - reference);
  return std::isfinite(diff) && diff <= atol + rtol * std::fabs(reference);
}

void check_tolerances_apply(const CompareOptions& options) {
  if (options.type == ElementType::bytes && (options.rtol > 0 || options.atol > 0)) {
    fail(Errc::bad_input, "--rtol and --atol apply to floating-point elements: give --dtype f16, bf16, f32 or f64");
  }
}

MemoryComparison compare_memory(const MemoryImage& a, const MemoryImage& b, const CompareOptions& options) {
  if (a.regions.size() != b.regions.size()) {
    fail(Errc::bad_input, "{} holds {} memory regions but {} holds {}: not dumps of the same dispatch", a.dir.string(),
         a.regions.size(), b.dir.string(), b.regions.size());
  }
  MemoryComparison result;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const auto& ra = a.regions[i];
    const auto& rb = b.regions[i];
    if (ra.base != rb.base || ra.size != rb.size) {
      fail(Errc::bad_input, "region {}: {} has {} bytes at {} but {} has {} bytes at {}: not dumps of the same dispatch", i + 1,
           a.dir.string(), ra.size, hex_address(ra.base), b.dir.string(), rb.size, hex_address(rb.base));
    }
    RegionComparison rc;
    rc.region = ra;
    compare_region(a, ra, b, rb, options, rc);
    result.bytes += ra.size;
    result.regions.push_back(std::move(rc));
  }
  return result;
}

}  // namespace rpl::isolate
