#pragma once
// Roofline ceilings: peak FLOP/s per kind of arithmetic and peak bytes/s per memory level, from
// per-architecture rates per compute unit per clock (cited in src/hal/ceilings.cpp) times the
// device's units and clock, or from a file of measured ceilings (--ceilings).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::hal {

enum class ComputeKind { fp64, fp32, fp16, matrix_fp64, matrix_tf32, matrix_fp32, matrix_fp16, matrix_fp8 };
inline constexpr size_t kComputeKinds = 8;
inline constexpr std::array<std::string_view, kComputeKinds> kComputeKindNames = {
    "fp64", "fp32", "fp16", "matrix_fp64", "matrix_tf32", "matrix_fp32", "matrix_fp16", "matrix_fp8"};

enum class MemoryLevel { dram, l2, l1, lds };
inline constexpr size_t kMemoryLevels = 4;
inline constexpr std::array<std::string_view, kMemoryLevels> kMemoryLevelNames = {"dram", "l2", "l1", "lds"};

struct Ceilings {
  std::array<std::optional<double>, kComputeKinds> flops_per_s{};
  std::array<std::optional<double>, kMemoryLevels> bytes_per_s{};
  std::optional<double> clock_mhz;  // the clock the FLOP ceilings are at: the device's maximum for the
                                    // table's; none where a ceilings file gives them (measured at its own)
  std::string source;               // "architecture table", or the ceilings file
  std::vector<std::string> notes;   // why a ceiling is missing
};

/// What the trace says about the device.
struct DeviceFacts {
  std::string architecture;          // "sm_90", "gfx942"
  std::string product;               // "NVIDIA H100 80GB HBM3"
  std::optional<int> compute_units;  // SMs or CUs
  std::optional<double> clock_mhz;   // the device's maximum compute clock
  std::optional<double> dram_bytes_per_s;  // from the device's memory clock and bus, where the trace has them
};

/// Ceilings from the architecture tables; a kind or level the tables cannot give is null, with a note.
Ceilings table_ceilings(const DeviceFacts& device);

/// Overrides ceilings with a JSON file {"flops_per_s": {"fp32": 6.0e13, ...}, "bytes_per_s":
/// {"dram": 3.0e12, ...}}. Error(bad_input) naming the file for anything else: unreadable, not
/// JSON, an unknown key, a value that is not a positive number.
void apply_ceilings_file(Ceilings& ceilings, const std::string& path);

}  // namespace rpl::hal
