#pragma once
// One dispatch captured into a snapshot folder: what `rocm-perf isolate` does, and the oracle
// capture of `rocm-perf optimize`.
#include <filesystem>
#include <string>
#include <vector>

#include <rpl/report/isolate_report.hpp>

namespace rpl::cli {

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
};

/// Runs the program once, capturing, and moves the complete snapshot (with isolate.json) into
/// place. Errors as `rocm-perf isolate` reports them: nothing captured is bad_input, a failed
/// capture or an interrupted run is run_failed; the earlier snapshot is kept then.
report::IsolateFacts isolate_dispatch(const IsolateRequest& request);

}  // namespace rpl::cli
