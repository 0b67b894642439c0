// cupti_client: subscribes to CUPTI itself before touching the GPU, as a profiler built into an
// application would, then runs one kernel. Under rocm-perf's tracer it is a second CUPTI client.
#include <cupti.h>

#include "../../../examples/common/gpu_compat.hpp"

__global__ void empty_kernel() {}

int main() {
  CUpti_SubscriberHandle handle;
  const CUptiResult r = cuptiSubscribe(&handle, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr);
  std::printf("own cuptiSubscribe: %d\n", static_cast<int>(r));
  empty_kernel<<<1, 32>>>();
  GPU_CHECK(gpuDeviceSynchronize());
  return 0;
}
