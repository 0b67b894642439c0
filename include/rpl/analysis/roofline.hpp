#pragma once
// The roofline of every kernel with counter values in the trace: FLOPs by kind and bytes by memory
// level from the vendor's counters (reference/cuda.md §4.1, reference/rocm.md §5), operational
// intensity against DRAM, achieved rates, the ceiling that binds, and how close the kernel is to it.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <rpl/analysis/speed_of_light.hpp>
#include <rpl/hal/ceilings.hpp>
#include <rpl/trace/model.hpp>

namespace rpl::analysis {

/// How one architecture's counters give FLOPs and bytes: each figure a sum of counters times
/// coefficients. Empty terms: the architecture's counters cannot give that figure (see `why`).
struct CounterTerm {
  std::string counter;
  double coefficient;
  // Where named, a second counter the term is multiplied by: ncu's full set gives some counts only
  // as rates per cycle elapsed, which times the cycles elapsed are the counts.
  std::string times = {};
};
struct CounterRecipe {
  std::array<std::vector<CounterTerm>, hal::kComputeKinds> flops;
  std::array<std::vector<CounterTerm>, hal::kMemoryLevels> bytes;
  // Read where a trace lacks a counter of a figure's formula but has all of these: the same figure
  // counted otherwise, as a user's own ncu --metrics or ncu's full set name it. Never collected.
  std::array<std::vector<CounterTerm>, hal::kComputeKinds> flops_otherwise;
  std::array<std::vector<CounterTerm>, hal::kMemoryLevels> bytes_otherwise;
  // FLOPs a kind's formula counts that are no arithmetic, taken off it where a dispatch has the
  // counters (never below zero): ptxas's HFMA2.MMA register moves, which ncu counts as HFMA
  // instructions. The first form is collected; the second is read where a trace has it instead.
  std::array<std::vector<CounterTerm>, hal::kComputeKinds> flops_not_arithmetic, flops_not_arithmetic_otherwise;
  // The matrix unit's instructions, where a trace lacks the matrix kinds' counters (roofline
  // recipes of ncu list it instead): none ran, so those FLOPs are 0; some ran, so the kernel's FLOPs
  // are not all counted and it is not placed. Less those of them that do no matrix arithmetic,
  // where the trace counts them (ptxas's HFMA2.MMA register moves). Never collected.
  std::string matrix_instructions, matrix_instructions_not_arithmetic;
  // The matrix unit's integer operations (int8 and int1 GEMMs), each counted apart: no FLOPs, so a
  // kernel that has some is not placed on the FLOP roofline, where its float work alone would make
  // an integer GEMM look memory-bound. Collected.
  std::vector<CounterTerm> matrix_integer_ops;
  // The compute units' clock over a dispatch, in cycles a second, where a trace records it (the
  // first of these the dispatch has). ncu locks the clock to base unless told otherwise, and its
  // roofline puts each peak at the clock the kernel ran at; the table's compute ceilings are scaled
  // to it, so a kernel is placed against the roof it could have reached as measured. Never collected.
  std::vector<std::string> compute_clock;
  std::string why_missing;  // for whatever it cannot give
};

/// The recipe of an architecture ("sm_90", "gfx942"); none for one without counter formulas.
std::optional<CounterRecipe> counter_recipe(std::string_view architecture);

/// Every counter a recipe reads, sorted and without duplicates (what a counter pass collects).
std::vector<std::string> recipe_counters(const CounterRecipe& recipe);

/// What is lost where this GPU's ncu lacks some of the counters the roofline and stall passes ask
/// for (`missing`, as the pass dropped them): one warning per consequence, naming the counters.
std::vector<std::string> missing_nvidia_counter_warnings(const std::vector<std::string>& missing);

/// The counter passes of an AMD architecture's recipe, grouped as rocprof-compute groups them
/// (reference/rocm.md §5), since rocprofv3 fails a pass whose counters cannot be collected
/// together. None for NVIDIA (ncu replays as often as it needs) and for architectures without a recipe.
std::vector<std::vector<std::string>> counter_passes(std::string_view architecture);

struct KernelRoofline {
  std::string name;
  size_t dispatches = 0;           // all of the kernel's dispatches
  size_t measured_dispatches = 0;  // those with counter values
  double time_ns = 0;              // traced duration of the measured dispatches
  std::array<std::optional<double>, hal::kComputeKinds> flops{};
  std::array<std::optional<double>, hal::kMemoryLevels> bytes{};
  std::optional<double> total_flops;
  std::optional<double> operational_intensity;   // FLOP per DRAM byte
  std::optional<double> achieved_flops_per_s;
  std::array<std::optional<double>, hal::kMemoryLevels> achieved_bytes_per_s{};
  std::optional<double> clock_mhz;       // the clock its measured dispatches ran at, where the trace records it
  std::optional<double> compute_roof;    // FLOP/s the kernel's mix of arithmetic could reach (at clock_mhz)
  std::optional<std::string> binding_ceiling;  // "dram", or the kind of arithmetic
  std::optional<std::string> position;         // "memory_bound" or "compute_bound"
  std::optional<double> percent_of_roof;
  std::vector<std::string> missing;            // figures that could not be computed, and why
  std::string unplaced;  // why a kernel whose FLOPs may be counted has no position, in a few words (missing says more)
  std::optional<SpeedOfLight> speed_of_light;  // ncu's own percentages of peak, where the trace has them
};

struct RooflineResult {
  hal::DeviceFacts device;
  hal::Ceilings ceilings;
  std::vector<KernelRoofline> kernels;  // by time, longest first
  std::vector<std::string> warnings;
};

struct RooflineOptions {
  std::optional<std::string> ceilings_file;
};

/// Error(bad_input) only for a bad ceilings file; a trace without counters gives no kernels and a
/// warning.
RooflineResult analyze_roofline(const trace::Trace& trace, const RooflineOptions& options = {});

}  // namespace rpl::analysis
