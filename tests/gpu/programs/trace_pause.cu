// trace_pause: pauses the injected tracer around some of its work through rpl_trace_pause (the hook
// of bench/tracer_pause_switching.sh): 4 launches of recorded_before; paused, 3 launches of
// while_paused and an event recorded on one stream and waited on by another; resumed, 2 launches
// of recorded_after. Exits 2 when no injected library has rpl_trace_pause, 3 when it refuses.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "spin_nodes.cuh"

__global__ void recorded_before(long long cycles) { spin(cycles); }
__global__ void while_paused(long long cycles) { spin(cycles); }
__global__ void recorded_after(long long cycles) { spin(cycles); }

int main() {
  GPU_CHECK(cudaFree(nullptr));  // the driver has loaded the tracer once the runtime starts
  const char* injected = std::getenv("CUDA_INJECTION64_PATH");
  void* tracer = injected ? dlopen(injected, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto* pause = tracer ? reinterpret_cast<int (*)(int)>(dlsym(tracer, "rpl_trace_pause")) : nullptr;
  if (!pause) {
    std::fprintf(stderr, "trace_pause: no injected library with rpl_trace_pause\n");
    return 2;
  }
  const long long unit = spin_cycles(100);
  cudaStream_t a, b;
  cudaEvent_t done;
  GPU_CHECK(cudaStreamCreate(&a));
  GPU_CHECK(cudaStreamCreate(&b));
  GPU_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  for (int i = 0; i < 4; ++i) recorded_before<<<1, 1, 0, a>>>(unit);
  GPU_CHECK(cudaDeviceSynchronize());
  if (pause(1) != 0) return 3;
  for (int i = 0; i < 3; ++i) while_paused<<<1, 1, 0, a>>>(unit);
  GPU_CHECK(cudaEventRecord(done, a));
  GPU_CHECK(cudaStreamWaitEvent(b, done, 0));
  GPU_CHECK(cudaDeviceSynchronize());
  if (pause(0) != 0) return 3;
  for (int i = 0; i < 2; ++i) recorded_after<<<1, 1, 0, b>>>(unit);
  GPU_CHECK(cudaGetLastError());
  GPU_CHECK(cudaDeviceSynchronize());
  std::printf("trace_pause: 4 launches, 3 paused, 2 after\n");
  return 0;
}
