// resource_kernels: one kernel for each resource cuobjdump reports (registers, static shared
// memory, local memory, stack, spills), for checking rocm-perf's readers of CUDA binaries. Run, it
// launches each kernel once and prints what the CUDA runtime says of it, one line per kernel:
//   kernel NAME registers R shared S local L constant C blocks_per_sm_at_256 B
#include <cstdio>

#include "../../../examples/common/gpu_compat.hpp"

__global__ void plain_axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void static_shared(float* out) {
  __shared__ float tile[1000];
  tile[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 7) % 1000];
}

// Indexed by data: the array lives in local memory.
__global__ void local_array(float* out, const int* index) {
  float scratch[256];
  for (int i = 0; i < 256; ++i) scratch[i] = out[i] * 3.0f;
  out[threadIdx.x] = scratch[index[threadIdx.x] & 255];
}

// Recursion: a call stack the compiler cannot size.
__device__ __noinline__ int depth(int n, const int* v) { return n <= 0 ? v[0] : v[n] + depth(n - 1, v); }
__global__ void recursive_stack(int* out, const int* v, int n) { out[threadIdx.x] = depth(n, v); }

// More live values than launch bounds allow registers for: spills.
__global__ void __launch_bounds__(1024, 2) many_live_values(float* out, const float* in) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = in[threadIdx.x * 48 + i];
#pragma unroll
  for (int r = 0; r < 16; ++r)
#pragma unroll
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + r) % 48] + 1.0f;
  float s = 0;
#pragma unroll
  for (int i = 0; i < 48; ++i) s += acc[i];
  out[threadIdx.x] = s;
}

template <typename Kernel>
void describe(const char* name, Kernel kernel) {
  cudaFuncAttributes a;
  GPU_CHECK(cudaFuncGetAttributes(&a, kernel));
  int blocks = 0;
  GPU_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, 256, 0));
  std::printf("kernel %s registers %d shared %zu local %zu constant %zu blocks_per_sm_at_256 %d\n", name, a.numRegs,
              a.sharedSizeBytes, a.localSizeBytes, a.constSizeBytes, blocks);
}

int main() {
  float *x, *y;
  int *index, *ints;
  GPU_CHECK(gpuMalloc(&x, 1024 * 48 * sizeof(float)));
  GPU_CHECK(gpuMalloc(&y, 1024 * 48 * sizeof(float)));
  GPU_CHECK(gpuMalloc(&index, 1024 * sizeof(int)));
  GPU_CHECK(gpuMalloc(&ints, 1024 * sizeof(int)));
  GPU_CHECK(gpuMemset(x, 0, 1024 * 48 * sizeof(float)));
  GPU_CHECK(gpuMemset(y, 0, 1024 * 48 * sizeof(float)));
  GPU_CHECK(gpuMemset(index, 0, 1024 * sizeof(int)));
  GPU_CHECK(gpuMemset(ints, 0, 1024 * sizeof(int)));
  plain_axpy<<<4, 256>>>(2.0f, x, y, 1024);
  static_shared<<<1, 256>>>(y);
  local_array<<<1, 256>>>(y, index);
  recursive_stack<<<1, 32>>>(ints, ints, 8);
  many_live_values<<<1, 256>>>(y, x);
  GPU_CHECK(gpuGetLastError());
  GPU_CHECK(gpuDeviceSynchronize());
  describe("_Z10plain_axpyfPKfPfi", plain_axpy);
  describe("_Z13static_sharedPf", static_shared);
  describe("_Z11local_arrayPfPKi", local_array);
  describe("_Z15recursive_stackPiPKii", recursive_stack);
  describe("_Z16many_live_valuesPfPKf", many_live_values);
  return 0;
}
