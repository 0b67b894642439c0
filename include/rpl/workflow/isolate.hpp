#pragma once
// rocm-perf isolate as a library call: one dispatch captured into a snapshot folder, which
// replaces the one there only once complete (docs/snapshot.md); also the oracle capture of
// rocm-perf optimize.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <rpl/backends/isolate_runs.hpp>
#include <rpl/report/isolate_report.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

/// The program run once, capturing (backends::capture_dispatch): the seam that tests replace with
/// a double that fills the snapshot folder as the capture library would.
using CaptureDispatch = std::function<backends::CaptureRun(const std::string& vendor, const backends::CaptureRequest& request)>;

struct IsolateRequest {
  std::vector<std::string> program;
  std::string kernel_regex;
  uint64_t dispatch = 0;
  std::filesystem::path out;        // replaced only when absent, empty or an earlier snapshot
  std::string backend = "auto";     // auto, cuda, rocm
  double timeout = 0;               // 0: none
  bool quiet_app = false;
  bool app_stdout_to_stderr = false;
  bool keep_staging = false;        // --debug: a failed capture's folder is kept
  CaptureDispatch capture;          // default: backends::capture_dispatch
};

/// Runs the program once, capturing, and moves the complete snapshot (with isolate.json) into
/// place. Errors as `rocm-perf isolate` reports them: nothing captured is bad_input, a failed
/// capture or an interrupted run is run_failed; the earlier snapshot is kept then. (Ctrl-C stops
/// the program through core's stop signals, as every spawned process.)
report::IsolateFacts run_isolate(const IsolateRequest& request, Control& control);

}  // namespace rpl::workflow
