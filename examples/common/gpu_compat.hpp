#pragma once
// One source for nvcc and hipcc: the few runtime calls and device intrinsics the testbeds use.
#include <cstdio>
#include <cstdlib>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpy hipMemcpy
#define gpuMemset hipMemset
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuGetLastError hipGetLastError
#define gpuGetErrorString hipGetErrorString
#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuStream_t hipStream_t
#define gpuStreamCreate hipStreamCreate
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamWaitEvent hipStreamWaitEvent
#define gpuEvent_t hipEvent_t
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#else
#include <cuda_runtime.h>
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpy cudaMemcpy
#define gpuMemset cudaMemset
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuGetLastError cudaGetLastError
#define gpuGetErrorString cudaGetErrorString
#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuStream_t cudaStream_t
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamWaitEvent cudaStreamWaitEvent
#define gpuEvent_t cudaEvent_t
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#endif

// Every runtime call is checked; a failure names the call and ends the program with status 2.
#define GPU_CHECK(expr)                                                                              \
  do {                                                                                               \
    gpuError_t gpu_check_status_ = (expr);                                                           \
    if (gpu_check_status_ != gpuSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                      \
                   gpuGetErrorString(gpu_check_status_));                                            \
      std::exit(2);                                                                                  \
    }                                                                                                \
  } while (0)

// Nanoseconds of a global clock, for kernels that must run for a set time.
__device__ inline unsigned long long gpu_nanotime() {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_amdgcn_s_memrealtime() * 10ull;  // the 100 MHz real-time counter of gfx9/gfx10 GPUs
#elif defined(__HIPCC__)
  return 0;  // host pass of a HIP compile: never called
#else
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#endif
}

// Busy-waits for ns nanoseconds; writes so the compiler keeps it.
static __global__ void spin_kernel(unsigned long long ns, int* out) {
  const unsigned long long start = gpu_nanotime();
  while (gpu_nanotime() - start < ns) {
  }
  if (threadIdx.x == 0) out[blockIdx.x] = 1;
}
