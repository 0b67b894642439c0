#pragma once
// What a capture reported (capture_status.json, written by the capture library) and what the same
// run's trace says of the captured kernel: the pieces of rocm-perf isolate's result.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rpl/trace/model.hpp>

namespace rpl::isolate {

struct CaptureStatus {
  bool captured = false;
  std::string error;                         // why the capture failed, when it did
  std::map<std::string, uint64_t> launches;  // nothing captured: every kernel launched, with its count
  std::string kernel;                        // mangled
  uint64_t dispatch_index = 0;
  std::optional<uint64_t> correlation_id;    // the launch's CUPTI correlation id (NVIDIA)
  uint64_t regions = 0;
  uint64_t bytes = 0;                        // captured
  uint64_t stored_bytes = 0;                 // their files on disk (before the launch)
  uint64_t skipped_bytes = 0;                // in all-zero chunks, stored as nothing
  double capture_ms = 0;                     // the program stopped this long before the launch
  std::optional<double> after_ms;            // and this long after it
  std::vector<std::string> warnings;
};

/// The text of capture_status.json, as the capture libraries write it: when nothing was captured,
/// the error or else the launches.
std::string format_capture_status(const CaptureStatus& status);

/// Reads what format_capture_status wrote; Error(internal) naming the file when it is not that.
CaptureStatus parse_capture_status(const std::string& text, const std::filesystem::path& file);

struct ProgramKernelTime {
  std::optional<double> captured_dispatch_ms;  // the index-th dispatch of the kernel, by start time
  double median_ms = 0;                        // over all its dispatches in the run
  uint64_t dispatches = 0;
};

/// The kernel's times in the trace of the capturing run; none when the trace has no dispatch of it.
std::optional<ProgramKernelTime> kernel_time_in_trace(const trace::Trace& trace, const std::string& mangled_name,
                                                      uint64_t dispatch_index);

}  // namespace rpl::isolate
