#pragma once
// Leaves the GPU's L2 holding clean lines of a scratch buffer: restoring a snapshot's memory writes
// it through L2, and a replayed kernel would otherwise pay for writing those dirty lines back (on
// an H100, a 64 MiB copy kernel ran 6 % slower than in its program). A tiny kernel, JIT-compiled
// from the PTX here, reads twice the L2's size.
#include <cuda.h>

namespace rpl::replay {

class L2Flush {
 public:
  /// Error(run_failed) when the kernel cannot be loaded or the scratch memory allocated. Allocate
  /// it after the snapshot's addresses are reserved: it takes address space of its own.
  explicit L2Flush(CUdevice device);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;
  void enqueue(CUstream stream);

 private:
  CUmodule module_ = nullptr;
  CUfunction touch_ = nullptr;
  CUdeviceptr scratch_ = 0;
  unsigned long long words_ = 0;
};

}  // namespace rpl::replay
