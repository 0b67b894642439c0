#pragma once
// A small, complete NVIDIA snapshot folder for tests that read, compare or refuse snapshots
// without a GPU, and the pieces such tests change in it.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace rpl::test {

/// The bytes of these floats, as a memory region holds them.
std::string float_bytes(const std::vector<float>& values);

/// The first 64 bytes of an ELF file for `machine` (190 CUDA, 224 AMDGPU): all that the snapshot
/// reader checks of a code object.
std::string elf_header(uint16_t machine);

/// Writes into `dir` (made if missing) a snapshot of scale(float*, float const*, int): regions
/// 0x7f0000000000 (8 bytes of 0x07) and 0x7f0000200000 (floats 1, 2, 3, 4), a 20-byte argument
/// buffer, one global ("counter") and an EM_CUDA code object. Returns `dir`.
std::filesystem::path write_test_snapshot(const std::filesystem::path& dir);

}  // namespace rpl::test
