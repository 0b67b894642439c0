#pragma once
// Times each replayed launch the way the trace does: by the kernel's own start and end in CUPTI's
// activity records, so that a replayed time compares with a profiled one (CUDA events around a
// launch add several microseconds of their own, which is most of a short kernel's time). Falls
// back to events when CUPTI cannot start (another CUPTI client, such as Nsight, is attached).
#include <cuda.h>

#include <string>
#include <vector>

namespace rpl::replay {

class KernelTimer {
 public:
  KernelTimer();
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  /// "cupti" or "events"
  const char* method() const { return cupti_ ? "cupti" : "events"; }
  void before_launch(CUstream stream);
  /// Waits for the launch to finish.
  void after_launch(CUstream stream);
  /// The durations of the launches timed so far, in launch order, in milliseconds.
  std::vector<double> durations_ms();

 private:
  bool cupti_ = false;
  CUevent start_ = nullptr, stop_ = nullptr;
  std::vector<double> event_ms_;
};

}  // namespace rpl::replay
