#pragma once
// What both replayers (rpl-cuda-replay, rpl-hsa-replay) share: their arguments, the timing part of
// the result document, and a main that writes the document — or {"error", "exit"} — to --result.
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace rpl::replay {

struct Options {
  std::string mode;  // reserve-check, full-vm
  std::filesystem::path capture_dir, result, dump_dir;
  uint64_t iterations = 1;
  bool recopy = true;
};

/// full-vm could not have the captured addresses in this process: the driver offered others, or
/// refused them. Host libraries share the address space and land anew in each process, so the
/// error document says "addresses_taken": true and rocm-perf tries again in a fresh one.
class AddressesTaken : public Error {
 public:
  explicit AddressesTaken(const std::string& why)
      : Error(Errc::run_failed, "the captured address ranges cannot all be reserved where they were (" + why +
                                    "; rocm-perf replay reserve-check lists them)") {}
};

/// read_snapshot, and then the code object read by rocm-perf's own (fuzzed) reader: Error(bad_input)
/// when it is malformed or lacks the kernel. The drivers may crash on a damaged one rather than
/// refuse it (CUDA 13's cuModuleLoadData did, on an H100), so none reaches them unread.
isolate::Snapshot read_checked_snapshot(const std::filesystem::path& dir);

/// The document's header part that both modes share.
nlohmann::ordered_json document_start(const Options& options, const std::string& kernel_name, const std::string& mangled_name);

/// iterations, gpu_time_ms {average, median, min, max}, wall_time_ms and dump_dir.
void add_timing(nlohmann::ordered_json& doc, const Options& options, const std::vector<double>& gpu_ms, double wall_ms);

/// --dump-outputs: the memory after the last iteration, read through read(address, n, into), as a
/// memory dump of chunked files; Error(run_failed) with the figures when the disk cannot hold it.
void dump_memory_or_fail(const std::filesystem::path& dir, std::vector<isolate::MemoryRegion> regions,
                         const std::function<void(uint64_t address, uint64_t n, char* into)>& read, std::span<char> staging);

/// Parses argv, runs replay, writes its document to --result; exit 0, or for reserve-check 1 when
/// a reservation failed and 2 when one was relocated; on an error its code (rpl::Errc).
int replayer_main(int argc, char** argv, const char* name,
                  const std::function<nlohmann::ordered_json(const Options&)>& replay);

}  // namespace rpl::replay
