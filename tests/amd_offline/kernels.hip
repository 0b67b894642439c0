// Kernels of varied register, AGPR, LDS and scratch use for the amd-offline tests.
#include <hip/hip_runtime.h>

// N accumulators kept live across a loop: register use grows with N.
template <int N>
__global__ void __launch_bounds__(256) pressure(const float* in, float* out, int steps) {
  float acc[N];
#pragma unroll
  for (int i = 0; i < N; ++i) acc[i] = in[threadIdx.x + i * 256];
  for (int k = 0; k < steps; ++k) {
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = acc[i] * acc[(i + 1) % N] + 1.0f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < N; ++i) sum += acc[i];
  out[blockIdx.x * 256 + threadIdx.x] = sum;
}
template __global__ void pressure<4>(const float*, float*, int);
template __global__ void pressure<24>(const float*, float*, int);
template __global__ void pressure<40>(const float*, float*, int);
template __global__ void pressure<56>(const float*, float*, int);
template __global__ void pressure<72>(const float*, float*, int);
template __global__ void pressure<100>(const float*, float*, int);
template __global__ void pressure<130>(const float*, float*, int);
template __global__ void pressure<200>(const float*, float*, int);

// The same pressure under the default 1024-thread bound: the compiler must fit 4 waves per SIMD.
__global__ void pressure_1024(const float* in, float* out, int steps) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = in[threadIdx.x + i * 1024];
  for (int k = 0; k < steps; ++k) {
#pragma unroll
    for (int i = 0; i < 48; ++i) acc[i] = acc[i] * acc[(i + 7) % 48] + 0.5f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 48; ++i) sum += acc[i];
  out[threadIdx.x] = sum;
}

// 60,000 bytes of LDS per 1024-thread block: one workgroup per CU, whatever the remark says.
__global__ void __launch_bounds__(1024) lds_heavy(float* a) {
  __shared__ float s[15000];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[(threadIdx.x * 7) % 15000];
}

// 20,000 bytes of LDS per 256-thread block: three workgroups per 64 KiB.
__global__ void __launch_bounds__(256) lds_medium(float* a) {
  __shared__ float s[5000];
  for (int i = threadIdx.x; i < 5000; i += 256) s[i] = a[i];
  __syncthreads();
  a[threadIdx.x] = s[(threadIdx.x * 13) % 5000];
}

// A dynamically indexed private array lives in scratch.
__global__ void __launch_bounds__(256) scratch_user(const int* idx, float* out) {
  float local[64];
  for (int i = 0; i < 64; ++i) local[i] = static_cast<float>(i * threadIdx.x);
  out[threadIdx.x] = local[idx[threadIdx.x] & 63];
}

#if defined(__gfx90a__) || defined(__gfx940__)
typedef float float32v __attribute__((ext_vector_type(32)));
// Matrix cores accumulate in AGPRs, which share the VGPR file on gfx90a and later.
__global__ void __launch_bounds__(256) mfma_user(const float* a, const float* b, float* c) {
  float32v acc = {0};
  for (int k = 0; k < 64; ++k) acc = __builtin_amdgcn_mfma_f32_32x32x1f32(a[threadIdx.x + k], b[threadIdx.x + k], acc, 0, 0, 0);
  for (int i = 0; i < 32; ++i) c[threadIdx.x * 32 + i] = acc[i];
}
#endif

int main() { return 0; }
