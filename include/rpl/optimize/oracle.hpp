#pragma once
// The oracle every candidate kernel must reproduce: a dispatch captured by `rocm-perf isolate`
// and the memory right after it. A candidate's code object runs on a copy of the snapshot whose
// files are links to the original's; the bytes the original kernel writes are poisoned first, so
// that a candidate that does no work cannot pass on what the launch before it left there.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rpl/isolate/memory_compare.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace rpl::optimize {

/// Byte ranges [begin, end) of regions, by region base: the bytes a kernel writes.
using ByteRanges = std::vector<std::pair<uint64_t, uint64_t>>;
using WrittenBytes = std::map<uint64_t, ByteRanges>;

/// The byte every poisoned byte holds: 0xFF makes every float and double a NaN.
inline constexpr unsigned char kPoisonByte = 0xFF;
/// The second pattern a candidate is replayed with: its result must not depend on what the
/// written bytes held before (a race, a read of the output) any more than on which run it is.
/// 0xA5A5A5A5 is a small negative float (-2.9e-16), far from a NaN.
inline constexpr unsigned char kSecondPoisonByte = 0xA5;

/// Runs the kernel of the snapshot in snapshot_dir once and writes the memory after it into
/// dump_dir (rocm-perf replay full-vm --iterations 1 --dump-outputs). Throws Error when the
/// replay fails (a fault, a timeout).
using Replayer = std::function<void(const std::filesystem::path& snapshot_dir, const std::filesystem::path& dump_dir)>;

/// Writes dir as a snapshot of the same dispatch: snapshot's files linked (or copied where links
/// cannot be made), its code object replaced by code_object when that is not empty, and the bytes
/// of poison filled with pattern. Returns it as read back.
isolate::Snapshot derive_snapshot(const isolate::Snapshot& snapshot, const std::filesystem::path& dir,
                                  const std::string& code_object, const WrittenBytes& poison,
                                  unsigned char pattern = kPoisonByte);

/// The bytes that differ between two images of the same regions.
WrittenBytes differing_bytes(const isolate::MemoryImage& a, const isolate::MemoryImage& b);
uint64_t byte_count(const WrittenBytes& bytes);

struct WrittenBytesSearch {
  WrittenBytes bytes;
  std::vector<std::string> notes;  // what could not be told apart, and what that leaves unchecked
};

/// The bytes that code_object's kernel (the original's) writes on snapshot, whose folder holds
/// the memory after the captured launch in after/: those the launch changed, and in each region
/// of at most probe_limit bytes, those it wrote back after the region was poisoned. The set is
/// kept only if the original, replayed with it poisoned, still reproduces after/ exactly.
WrittenBytesSearch find_written_bytes(const isolate::Snapshot& snapshot, const std::string& code_object,
                                      const std::filesystem::path& work, const Replayer& replay,
                                      uint64_t probe_limit = uint64_t{256} << 20);

struct CorrectnessVerdict {
  bool passed = false;
  std::string failure;  // "the replay failed: ...", or the first difference from the oracle
  std::optional<isolate::MemoryComparison> comparison;
};

/// Replays code_object on snapshot with written filled with pattern and compares the memory after
/// it with snapshot's after/.
CorrectnessVerdict check_on_oracle(const isolate::Snapshot& snapshot, const std::string& code_object,
                                   const WrittenBytes& written, const std::filesystem::path& work, const Replayer& replay,
                                   const isolate::CompareOptions& options, unsigned char pattern = kPoisonByte);

/// The launch's arguments as the kernel declares its parameters, in order: the snapshot's own list,
/// or on AMD, whose capture records the argument buffer as one, the code object's metadata (the
/// runtime's hidden arguments left out).
std::vector<isolate::KernelArgument> kernel_arguments(const isolate::Snapshot& snapshot);

/// How many input shapes the snapshots hold: launches that differ in their grid or block, or in
/// the bytes of a kernel argument that is not a pointer (pointer[i]: the kernel's parameter i is
/// one; arguments past the kernel's parameters are not compared). A kernel that
/// matches every oracle was proven on this many shapes.
size_t input_shapes(const std::vector<isolate::Snapshot>& snapshots, const std::vector<bool>& pointer);

/// What an accepted kernel's verdict says when the oracles hold one shape.
inline constexpr const char* kOneShapeVerdict = "proven on one input shape (--check-args with another shape adds a second)";

/// "region 0x00007f...: 4194304 of 4194304 f32 elements differ, the first at byte 0 (0.0123 here, nan expected)"
std::string first_difference(const isolate::MemoryComparison& comparison, const isolate::CompareOptions& options);

}  // namespace rpl::optimize
