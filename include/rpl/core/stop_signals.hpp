#pragma once
// Ctrl-C and SIGTERM as a request to stop cleanly: while a StopSignals lives they set a flag
// instead of ending the process, every run_process kills its child's process group and returns
// it cancelled, and the command unwinds, removing its staging folders, to exit with an error.
#include <atomic>

namespace rpl {

class StopSignals {
 public:
  StopSignals();  // clears the flag
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};

/// The flag SIGINT and SIGTERM set while a StopSignals lives; null when none does.
const std::atomic<bool>* active_stop_flag();

/// Whether SIGINT or SIGTERM came while a StopSignals lives.
inline bool stop_requested() {
  const auto* flag = active_stop_flag();
  return flag && flag->load();
}

}  // namespace rpl
