// roofline_calibration [N] [FMA_PER_THREAD]
// Kernels with exactly known work, printed by the program: an FMA-bound kernel, a streaming copy,
// and a triad mixing both. Checks every result; exits 1 when one is wrong.
#include <vector>

#include "../common/gpu_compat.hpp"

// Four independent FMA chains per thread; FLOPs = 2 * 4 * iterations * threads, one store each.
__global__ void fma_bound(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = 1.0f + blockIdx.x * 1e-6f, c = 0.5f, d = 0.25f;
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, 0.999f, 0.001f);
    b = fmaf(b, 0.999f, 0.001f);
    c = fmaf(c, 0.999f, 0.001f);
    d = fmaf(d, 0.999f, 0.001f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

__global__ void stream_copy(const float* in, float* out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) out[i] = in[i];
}

// a = b + s * c: one FMA (2 FLOPs) and 12 bytes per element.
__global__ void triad(float* a, const float* b, const float* c, float s, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) a[i] = fmaf(s, c[i], b[i]);
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (size_t{1} << 26);
  const int fma_iterations = argc > 2 ? std::atoi(argv[2]) : 4096;
  if (n == 0 || n % 256 != 0 || fma_iterations <= 0) {
    std::fprintf(stderr, "usage: %s [N, a multiple of 256] [FMA_PER_THREAD > 0]\n", argv[0]);
    return 2;
  }
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1024);
  float *x, *y, *z;
  GPU_CHECK(gpuMalloc(&x, n * sizeof(float)));
  GPU_CHECK(gpuMalloc(&y, n * sizeof(float)));
  GPU_CHECK(gpuMalloc(&z, n * sizeof(float)));
  GPU_CHECK(gpuMemcpy(x, host.data(), n * sizeof(float), gpuMemcpyHostToDevice));
  GPU_CHECK(gpuMemcpy(z, host.data(), n * sizeof(float), gpuMemcpyHostToDevice));

  const int fma_threads = 256, fma_blocks = 132 * 16;
  fma_bound<<<fma_blocks, fma_threads>>>(y, fma_iterations);
  GPU_CHECK(gpuGetLastError());
  const double fma_flops = 2.0 * 4 * fma_iterations * fma_threads * fma_blocks;
  const double fma_bytes = 4.0 * fma_threads * fma_blocks;

  stream_copy<<<4096, 256>>>(x, y, n);
  GPU_CHECK(gpuGetLastError());
  triad<<<4096, 256>>>(x, y, z, 2.0f, n);  // x = y + 2 z = 3 * host
  GPU_CHECK(gpuGetLastError());
  GPU_CHECK(gpuDeviceSynchronize());
  GPU_CHECK(gpuMemcpy(host.data(), x, n * sizeof(float), gpuMemcpyDeviceToHost));
  int wrong = 0;
  for (size_t i = 0; i < n; i += 997) wrong += host[i] != 3.0f * static_cast<float>(i % 1024);
  std::printf("kernel fma_bound flops %.0f bytes %.0f\n", fma_flops, fma_bytes);
  std::printf("kernel stream_copy flops 0 bytes %.0f\n", 8.0 * n);
  std::printf("kernel triad flops %.0f bytes %.0f\n", 2.0 * n, 12.0 * n);
  GPU_CHECK(gpuFree(x));
  GPU_CHECK(gpuFree(y));
  GPU_CHECK(gpuFree(z));
  if (wrong) {
    std::fprintf(stderr, "roofline_calibration: %d wrong values\n", wrong);
    return 1;
  }
  return 0;
}
