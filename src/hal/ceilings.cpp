// Peak rates per compute unit (SM or CU) per clock. Sources:
//   [A100]  NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs at 1410 MHz give FP64 9.7,
//           FP64 tensor 19.5, FP32 19.5, FP16 78, TF32 tensor 156, FP16/BF16 tensor 312 TFLOP/s (dense)
//   [H100]  NVIDIA H100 datasheet and whitepaper, reference/cuda.md §4.3: 132 SMs give FP64 33.5,
//           FP64 tensor 66.9, FP32 66.9 at 1980 MHz; FP16 non-tensor 133.8; TF32 tensor 494.7, FP16/BF16
//           tensor 989.4, FP8 tensor 1979 (dense) at 1830 MHz. Rates per clock are these figures over
//           SMs x clock; at the device's own maximum clock the tensor peaks come out 8 % higher.
//   [MI300] ROCm docs mi300.md "FLOPS/CLOCK/CU", reference/rocm.md §4.4; vector FP32 taken unpacked
//           (128), as rocprof-compute's VALU peak is, since the counters count one FMA per lane
//   [MI200] ROCm docs mi250.md "FLOPS/CLOCK/CU", reference/rocm.md §4.4
//   [VALU]  rocprof-compute's one VALU ceiling for every type, max_sclk x CUs x 64 x 2 (reference/rocm.md
//           §4.4): vector FP16 taken at that rate, as the counters count one FMA per lane
//   [HBM]   MI300X 5.3 TB/s (mi300.md); MI250 3.2 TB/s (mi250.md); MI250X 3.2768 TB/s from
//           rocprof-compute's formula 1600 MHz x 32 channels x 32 B x 2 GCDs (reference/rocm.md §4.4);
//           H100 SXM5 3.35 TB/s and H200 SXM 4.8 TB/s, NVIDIA's datasheets (reference/cuda.md §4.3),
//           under the names CUDA gives the lent GPUs (ncu's device__attribute_display_name in
//           tests/fixtures/ncu_raw_softmax.csv and ncu_raw_torch_roofline.csv)
#include <rpl/hal/ceilings.hpp>

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/hal/arch.hpp>

namespace rpl::hal {
namespace {

// FLOP per compute unit per clock, by ComputeKind; 0 where no source gives the rate.
struct ArchRates {
  std::string_view arch;
  std::array<double, kComputeKinds> flop_per_unit_clock;
};

constexpr std::array<ArchRates, 6> kRates = {{
    //            fp64  fp32  fp16  m_fp64 m_tf32 m_fp32 m_fp16 m_fp8
    {"sm_80", {{64, 128, 512, 128, 1024, 0, 2048, 0}}},        // [A100]
    {"sm_90", {{128, 256, 512, 256, 2048, 0, 4096, 8192}}},    // [H100]
    {"gfx90a", {{128, 128, 128, 256, 0, 256, 1024, 0}}},       // [MI200] [VALU]
    {"gfx940", {{128, 128, 128, 256, 1024, 256, 2048, 4096}}}, // [MI300] [VALU]
    {"gfx941", {{128, 128, 128, 256, 1024, 256, 2048, 4096}}}, // [MI300] [VALU]
    {"gfx942", {{128, 128, 128, 256, 1024, 256, 2048, 4096}}}, // [MI300] [VALU]
}};

struct ProductBandwidth {
  std::string_view product;
  double bytes_per_s;
};
// A product's own name only: the architecture's typical product, standing in where a trace names
// none, gets no bandwidth (an H200's details page says only sm_90).
constexpr std::array<ProductBandwidth, 5> kHbm = {{
    {"AMD Instinct MI300X", 5.3e12},     // [HBM]
    {"AMD Instinct MI250X", 3.2768e12},  // [HBM]
    {"AMD Instinct MI250", 3.2e12},      // [HBM]
    {"NVIDIA H100 80GB HBM3", 3.35e12},  // [HBM]
    {"NVIDIA H200", 4.8e12},             // [HBM]
}};

template <typename Names>
std::optional<size_t> index_of(const Names& names, std::string_view key) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == key) return i;
  }
  return std::nullopt;
}

}  // namespace

Ceilings table_ceilings(const DeviceFacts& device) {
  Ceilings c;
  c.source = "architecture table";
  const std::string arch = normalize_arch_name(device.architecture);
  const ArchRates* rates = nullptr;
  for (const auto& r : kRates) {
    if (r.arch == arch) rates = &r;
  }
  if (!rates) {
    c.notes.push_back(fmt::format("no peak FLOP rates for {} in the tables; give measured ones with --ceilings", arch));
  } else if (!device.compute_units || !device.clock_mhz || *device.clock_mhz <= 0) {
    c.notes.push_back("the trace does not give the device's compute units and clock; FLOP ceilings are unknown");
  } else {
    c.clock_mhz = device.clock_mhz;
    for (size_t k = 0; k < kComputeKinds; ++k) {
      if (rates->flop_per_unit_clock[k] > 0) {
        c.flops_per_s[k] = rates->flop_per_unit_clock[k] * *device.compute_units * *device.clock_mhz * 1e6;
      }
    }
  }
  if (device.dram_bytes_per_s) {
    c.bytes_per_s[static_cast<size_t>(MemoryLevel::dram)] = *device.dram_bytes_per_s;
  } else {
    for (const auto& p : kHbm) {
      if (p.product == device.product) c.bytes_per_s[static_cast<size_t>(MemoryLevel::dram)] = p.bytes_per_s;
    }
    if (!c.bytes_per_s[static_cast<size_t>(MemoryLevel::dram)]) {
      c.notes.push_back(device.product.empty()
                            ? std::string("no DRAM bandwidth: the trace names no product and gives none; give it with --ceilings")
                            : fmt::format("no DRAM bandwidth for '{}' in the tables or the trace; give it with --ceilings",
                                          device.product));
    }
  }
  c.notes.push_back("cache and LDS ceilings come only from a --ceilings file");
  return c;
}

void apply_ceilings_file(Ceilings& ceilings, const std::string& path) {
  const std::string text = read_file(path);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) fail(Errc::bad_input, "{}: the ceilings file is not a JSON object", path);
  for (const auto& [section, values] : doc.items()) {
    const bool flops = section == "flops_per_s";
    if (!flops && section != "bytes_per_s") {
      fail(Errc::bad_input, "{}: unknown key '{}' (expected flops_per_s and bytes_per_s)", path, section);
    }
    if (!values.is_object()) fail(Errc::bad_input, "{}: {} must be an object of name: value", path, section);
    for (const auto& [name, value] : values.items()) {
      auto index = flops ? index_of(kComputeKindNames, name) : index_of(kMemoryLevelNames, name);
      if (!index) fail(Errc::bad_input, "{}: unknown {} '{}'", path, flops ? "kind of arithmetic" : "memory level", name);
      if (!value.is_number() || value.get<double>() <= 0) {
        fail(Errc::bad_input, "{}: {}.{} must be a positive number", path, section, name);
      }
      (flops ? ceilings.flops_per_s[*index] : ceilings.bytes_per_s[*index]) = value.get<double>();
      if (flops) ceilings.clock_mhz.reset();
    }
  }
  ceilings.source = path;
}

}  // namespace rpl::hal
