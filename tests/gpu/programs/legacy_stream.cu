// legacy_stream: work on CUDA's legacy default stream between work on a blocking stream, with a
// non-blocking stream beside them. Per round: D on the non-blocking stream (3 units), A on the
// blocking stream (2 units), B on the legacy default stream (1 unit), C on the blocking stream
// (1 unit). The legacy stream makes B wait for A and C wait for B; D runs alongside.
// Usage: legacy_stream [UNIT_US] [ROUNDS]
#include <cstdio>
#include <cstdlib>

#include "spin_nodes.cuh"

__global__ void legacy_a(long long cycles) { spin(cycles); }
__global__ void legacy_b(long long cycles) { spin(cycles); }
__global__ void legacy_c(long long cycles) { spin(cycles); }
__global__ void non_blocking_d(long long cycles) { spin(cycles); }

int main(int argc, char** argv) {
  const double unit_us = argc > 1 ? std::atof(argv[1]) : 500;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const long long unit = spin_cycles(unit_us);
  cudaStream_t blocking, non_blocking;
  GPU_CHECK(cudaStreamCreate(&blocking));
  GPU_CHECK(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking));
  for (int r = 0; r < rounds; ++r) {
    non_blocking_d<<<1, 1, 0, non_blocking>>>(3 * unit);
    legacy_a<<<1, 1, 0, blocking>>>(2 * unit);
    legacy_b<<<1, 1>>>(unit);
    legacy_c<<<1, 1, 0, blocking>>>(unit);
    GPU_CHECK(cudaGetLastError());
    GPU_CHECK(cudaDeviceSynchronize());
  }
  std::printf("legacy_stream: %d rounds of %.0f us units\n", rounds, unit_us);
  return 0;
}
