#pragma once
// A failed CUDA driver call becomes the replayer's error, naming the call and the driver's code.
#include <cuda.h>

#include <string>

#include <rpl/core/error.hpp>

namespace rpl::replay {

inline void check(CUresult r, const std::string& what, Errc code = Errc::run_failed) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  fail(code, "{}: {}", what, name ? name : std::to_string(static_cast<int>(r)));
}

}  // namespace rpl::replay
