#pragma once
// What the CSV readers of a dispatch per row share: the register counts a row gives its kernel,
// and the geometry of a row of totals (legacy rocprof's results.csv, rocprof-compute's pmc_perf.csv).
#include <cstddef>
#include <optional>

#include <rpl/trace/model.hpp>

#include "csv_rows.hpp"

namespace rpl::trace::detail {

/// A layout's register columns; without a VGPR column the counts are not known (no occupancy).
/// What fill() writes is all a row tells of its kernel: these rows give a dispatch's LDS as one
/// total, so the kernel's static part is not known either.
struct RegisterColumns {
  std::optional<size_t> vgpr, agpr, sgpr;
  void fill(KernelSymbol& k, const CsvIntegers& field) const {
    k.arch_vgpr_count = field.optional(vgpr);
    k.accum_vgpr_count = field.optional(agpr);
    k.sgpr_count = field.optional(sgpr);
    k.registers_known = vgpr.has_value();
    k.lds_split_known = false;
  }
};

/// A row whose grid and workgroup are totals of work-items: a one-dimensional geometry. The names
/// are the columns' in the errors of a field that is not a number.
struct TotalsColumns {
  size_t grid = 0, block = 0;
  std::optional<size_t> lds, scratch;
  const char* grid_name = "";
  const char* block_name = "";
  DispatchGeometry geometry(const CsvIntegers& field) const {
    DispatchGeometry g;
    g.grid = {static_cast<uint64_t>(field.required(grid, grid_name)), 1, 1};
    g.workgroup = {static_cast<uint32_t>(field.required(block, block_name)), 1, 1};
    g.group_segment_size = static_cast<uint32_t>(field.optional(lds));
    g.private_segment_size = static_cast<uint32_t>(field.optional(scratch));
    return g;
  }
};

}  // namespace rpl::trace::detail
