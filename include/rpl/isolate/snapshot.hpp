#pragma once
// The snapshot of one kernel dispatch (docs/snapshot.md): dispatch.json, kernarg.bin, the code
// object, memory_regions.json and memory/region_<base>.bin. A memory dump (replay --dump-outputs,
// and the capture's own dump after the dispatch) is the memory part alone: memory_regions.json and
// memory/. Reading validates everything a replayer relies on, so that a bad folder fails with one
// line before any GPU work.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rpl::isolate {

inline constexpr const char* kSnapshotFormat = "rocm-perf snapshot";
inline constexpr const char* kSnapshotVersion = "1.1";  // 1.0 (raw region files) is read too

/// One device allocation (or module global) live when the dispatch ran.
struct MemoryRegion {
  uint64_t base = 0;
  uint64_t size = 0;
  std::string kind;  // device, managed, pool, vmm, global
  std::string file;  // memory/region_<base>.chunks (or .bin when raw), relative to the folder
  std::string encoding = "raw";  // raw: the file holds every byte (format 1.0); chunks: region_store.hpp
};

/// The memory part of a snapshot or dump.
struct MemoryImage {
  std::filesystem::path dir;
  std::vector<MemoryRegion> regions;  // sorted by base, none overlapping
};

struct KernelArgument {
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// A module-scope device variable (__device__ global), restored by name: its address is chosen
/// anew when the code object is loaded.
struct GlobalVariable {
  std::string name;
  uint64_t address = 0;  // at capture
  uint64_t size = 0;
  std::string file;
};

struct DispatchRecord {
  std::string vendor;        // nvidia, amd
  std::string device_name;
  std::string architecture;  // sm_90, gfx942
  std::string kernel_name;   // demangled
  std::string mangled_name;
  std::string code_object;   // kernel.cubin, kernel.hsaco
  uint64_t dispatch_index = 0;  // of this kernel in the program, from 0
  std::array<uint32_t, 3> grid{1, 1, 1};   // blocks (workgroups)
  std::array<uint32_t, 3> block{1, 1, 1};  // threads (work-items) per block
  std::optional<std::array<uint32_t, 3>> cluster;
  bool cooperative = false;           // launched as a cooperative (grid-synchronizing) kernel
  uint32_t static_shared_bytes = 0;   // LDS on AMD
  uint32_t dynamic_shared_bytes = 0;
  uint32_t scratch_bytes = 0;         // local / private memory per thread
  uint64_t kernarg_size = 0;
  std::vector<KernelArgument> arguments;
  std::vector<GlobalVariable> globals;
};

struct Snapshot {
  std::filesystem::path dir;
  DispatchRecord dispatch;
  MemoryImage memory;
};

/// Error(bad_input) naming the file and what is wrong: a missing file, JSON that is not the format,
/// a region file whose size differs from its region, overlapping regions, a kernarg.bin of
/// another size than the record says, arguments outside it, a code object that is not an ELF file
/// for the vendor's GPUs.
Snapshot read_snapshot(const std::filesystem::path& dir);
MemoryImage read_memory_image(const std::filesystem::path& dir);
/// Error(bad_input) when file is missing or not `size` bytes, naming `what` gave that size.
void check_file_size(const std::filesystem::path& file, uint64_t size, const std::string& what);

/// "memory/region_0x00007f1234500000.bin"
std::string region_file_name(uint64_t base);
std::string hex_address(uint64_t address);

/// Writes memory_regions.json for regions whose files are already in dir (the capture library
/// and the tests write the files themselves).
void write_memory_regions(const std::filesystem::path& dir, const std::vector<MemoryRegion>& regions);
void write_dispatch_record(const std::filesystem::path& dir, const DispatchRecord& record);

}  // namespace rpl::isolate
