#pragma once
// rocm-perf replay as library calls: a captured dispatch run alone by its vendor's replayer
// (reserve-check, full-vm), and two memory dumps compared region by region (docs/snapshot.md).
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <rpl/isolate/memory_compare.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct ReplayRequest {
  std::string mode = "full-vm";  // reserve-check, full-vm
  std::filesystem::path capture_dir;
  uint64_t iterations = 1;
  bool recopy = true;
  std::filesystem::path dump_dir;  // empty: none
  std::optional<double> timeout_seconds;
};

struct ReplayResult {
  int exit_status = 0;                // the replayer's: 0, or for reserve-check 1 failed, 2 relocated
  nlohmann::ordered_json document;    // replay.json (schemas/replay.schema.json), with this tool's header
};

/// The snapshot is read first, so that a bad folder fails (bad_input) before any GPU work; a dump
/// folder this call created is removed again where the replay fails.
ReplayResult run_replay(const ReplayRequest& request, Control& control);

struct CompareRequest {
  std::filesystem::path a, b;
  isolate::CompareOptions options;
};

struct CompareResult {
  isolate::MemoryImage a, b;
  isolate::MemoryComparison comparison;
  isolate::CompareOptions options;
};

/// Error(bad_input) for tolerances on bytes, or a folder that holds no memory image.
CompareResult run_compare(const CompareRequest& request, Control& control);

}  // namespace rpl::workflow
