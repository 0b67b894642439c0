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

/// The regions of write_test_snapshot, and what a "compute" kernel writes into the output.
inline constexpr uint64_t kTestInput = 0x7f0000000000, kTestOutput = 0x7f0000200000;
std::string test_result_bytes();  // floats 10, 20, 30, 40

/// Replays a snapshot of write_test_snapshot as a GPU would, its kernel being what its code object
/// holds after the 64-byte ELF header (the first word; what follows is the double's to use):
/// "compute" writes test_result_bytes() into the output when the input holds its 0x07 bytes (else
/// zeros); "nothing" writes nothing; "over_nan" writes it only over bytes that hold 0xFF, as a
/// kernel whose result depends on what its output held; "fault" fails as a faulting kernel would.
void stand_in_replay(const std::filesystem::path& snapshot_dir, const std::filesystem::path& dump_dir);

/// write_test_snapshot whose output already holds the result (the launch before computed the
/// same), with the memory after it in after/. Returns `dir`.
std::filesystem::path write_recomputing_snapshot(const std::filesystem::path& dir);

}  // namespace rpl::test
