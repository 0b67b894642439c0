#pragma once
// The runs behind rocm-perf isolate and replay: the program run once with the vendor's capture
// library (NVIDIA: the CUPTI library in capture mode, src/capture/nvidia/cupti_capture.hpp; AMD:
// the HSA tools library, src/capture/amd/hsa_capture_tool.cpp), and the vendor's replayer
// (rpl-cuda-replay, rpl-hsa-replay) spawned on a snapshot.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <rpl/backends/run_options.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::backends {

struct CaptureRequest {
  RunOptions run;                    // command, timeout, output handling
  std::string kernel_regex;
  uint64_t dispatch_index = 0;
  std::filesystem::path snapshot_dir;  // an empty folder the capture fills
};

struct CaptureRun {
  ProcessResult process;
  std::filesystem::path log_file;                // the program's output
  std::vector<std::filesystem::path> databases;  // the trace of the same run (NVIDIA only)
  std::optional<std::string> status_json;        // capture_status.json; none when the program never wrote it
};

/// Runs the program once, capturing: vendor "nvidia" or "amd". Error(missing_tool) without a GPU
/// (NVIDIA) or the capture library, Error(bad_input) when the program does not exist.
CaptureRun capture_dispatch(const std::string& vendor, const CaptureRequest& request);

struct ReplayRequest {
  std::string mode;  // reserve-check, full-vm
  std::filesystem::path capture_dir;
  uint64_t iterations = 1;
  bool recopy = true;
  std::optional<std::filesystem::path> dump_dir;
  std::optional<double> timeout_seconds;
};

struct ReplayRun {
  int exit_status = 0;       // the replayer's: 0, or for reserve-check 1 failed, 2 relocated
  std::string document;      // its result (schemas/replay.schema.json)
};

/// Runs the vendor's replayer. Errors: missing_tool (no replayer, no GPU), and the replayer's own
/// failure with its exit code and message (run_failed, bad_input); one that crashed is run_failed.
ReplayRun replay_snapshot(const std::string& vendor, const ReplayRequest& request);

/// Replays an NVIDIA snapshot under compute-sanitizer (the executable sanitizer) with one of its
/// tools, and returns the tool's log; the replay may fail under it (a fault), which the log shows.
/// Tried again in a fresh process where the captured addresses were taken. Errors: missing_tool (no
/// replayer, no GPU, no sanitizer), run_failed when the tool wrote no log.
std::string replay_under_sanitizer(const std::filesystem::path& sanitizer, const std::string& tool, const ReplayRequest& request);

/// $RPL_CUDA_REPLAY / $RPL_HSA_REPLAY, else rpl-cuda-replay / rpl-hsa-replay in our bin/ or
/// lib/rocm-perf/.
std::optional<std::filesystem::path> find_replayer(const std::string& vendor);

}  // namespace rpl::backends
