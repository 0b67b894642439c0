#include "test_snapshot_files.hpp"

#include <cstring>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace rpl::test {
namespace fs = std::filesystem;
using namespace rpl::isolate;

std::string float_bytes(const std::vector<float>& values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::string elf_header(uint16_t machine) {
  std::string h(64, '\0');
  h.replace(0, 4, "\x7f" "ELF");
  std::memcpy(h.data() + 18, &machine, 2);
  return h;
}

fs::path write_test_snapshot(const fs::path& dir) {
  fs::create_directories(dir / "memory");
  const std::vector<MemoryRegion> regions{{0x7f0000200000, 16, "device", region_file_name(0x7f0000200000)},
                                          {0x7f0000000000, 8, "pool", region_file_name(0x7f0000000000)}};
  write_output_file(dir / regions[0].file, float_bytes({1, 2, 3, 4}));
  write_output_file(dir / regions[1].file, std::string(8, '\x7'));
  write_memory_regions(dir, regions);
  DispatchRecord d;
  d.vendor = "nvidia";
  d.device_name = "NVIDIA H100 80GB HBM3";
  d.architecture = "sm_90";
  d.kernel_name = "scale(float*, float const*, int)";
  d.mangled_name = "_Z5scalePfPKfi";
  d.code_object = "kernel.cubin";
  d.grid = {4, 1, 1};
  d.block = {256, 1, 1};
  d.kernarg_size = 20;
  d.arguments = {{0, 8}, {8, 8}, {16, 4}};
  d.globals = {{"counter", 0x7f0000400000, 4, "globals/counter.bin"}};
  write_dispatch_record(dir, d);
  write_output_file(dir / "kernarg.bin", std::string(20, '\0'));
  write_output_file(dir / "kernel.cubin", elf_header(190));  // EM_CUDA
  fs::create_directories(dir / "globals");
  write_output_file(dir / "globals/counter.bin", std::string(4, '\0'));
  return dir;
}

std::string test_result_bytes() { return float_bytes({10, 20, 30, 40}); }

void stand_in_replay(const fs::path& snapshot_dir, const fs::path& dump_dir) {
  const auto s = read_snapshot(snapshot_dir);
  const std::string code = read_file(snapshot_dir / s.dispatch.code_object).substr(64);
  const std::string behaviour = code.substr(0, code.find(' '));
  if (behaviour == "fault") fail(Errc::run_failed, "the replayed kernel: CUDA_ERROR_ILLEGAL_ADDRESS");
  create_output_folder(dump_dir / "memory");
  std::string input;
  for (const auto& r : s.memory.regions) {
    if (r.base == kTestInput) input = read_region(snapshot_dir, r);
  }
  const std::string result = test_result_bytes();
  std::vector<MemoryRegion> dumped;
  for (const auto& r : s.memory.regions) {
    std::string bytes = read_region(snapshot_dir, r);
    if (r.base == kTestOutput && behaviour == "compute") bytes = input == std::string(8, '\x07') ? result : std::string(16, '\0');
    if (r.base == kTestOutput && behaviour == "over_nan") {
      for (size_t i = 0; i < bytes.size(); ++i) {
        if (static_cast<unsigned char>(bytes[i]) == 0xFF) bytes[i] = result[i];
      }
    }
    dumped.push_back({r.base, r.size, r.kind, region_file_name(r.base)});  // raw, as format 1.0 wrote them
    write_output_file(dump_dir / dumped.back().file, bytes);
  }
  write_memory_regions(dump_dir, dumped);
}

fs::path write_recomputing_snapshot(const fs::path& dir) {
  write_test_snapshot(dir);
  for (const auto& r : read_snapshot(dir).memory.regions) {
    if (r.base == kTestOutput) write_output_file(dir / r.file, test_result_bytes());
  }
  stand_in_replay(dir, dir / "after");
  return dir;
}

}  // namespace rpl::test
