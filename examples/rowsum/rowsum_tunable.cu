// rowsum_tunable ROWS COLS --block B --rows-per-block R --vec V --unroll U [--repeat N]
// The sum of squares of each row of a ROWS x COLS matrix of floats (a row norm, as a normalization
// layer takes it), whose launch is chosen at run time: blocks of B threads, each block R rows (B / R
// threads a row, whole warps), loads of V floats (float, float2, float4) and U loads in flight a
// thread. A memory-bound kernel of another kind than the stencil and the SGEMM, for an autotune
// landscape (rowsum_space.json). Prints its own timing (median launch) and checks sampled rows
// against the CPU; exits 1 when wrong, 2 for bad usage.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/gpu_compat.hpp"

namespace {

template <int V>
struct Vec;
template <>
struct Vec<1> {
  using type = float;
  static __device__ float squares(float v) { return v * v; }
};
template <>
struct Vec<2> {
  using type = float2;
  static __device__ float squares(float2 v) { return v.x * v.x + v.y * v.y; }
};
template <>
struct Vec<4> {
  using type = float4;
  static __device__ float squares(float4 v) { return v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w; }
};

// The matrix's values, the same on both sides: a hash of the index, in [-1, 1).
__host__ __device__ inline float value_at(size_t i) {
  uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(i >> 32);
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return static_cast<float>(h & 0xffff) / 32768.0f - 1.0f;
}

__global__ void fill(float* x, size_t count) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count; i += static_cast<size_t>(gridDim.x) * blockDim.x) x[i] = value_at(i);
}

template <int V, int U>
__global__ void row_sum_squares(const float* x, float* out, int rows, int cols, int rows_per_block) {
  extern __shared__ float partial[];
  const int per_row = static_cast<int>(blockDim.x) / rows_per_block;
  const int lane = static_cast<int>(threadIdx.x) % per_row;
  const int row = static_cast<int>(blockIdx.x) * rows_per_block + static_cast<int>(threadIdx.x) / per_row;
  float acc[U] = {};
  if (row < rows) {
    using T = typename Vec<V>::type;
    const T* r = reinterpret_cast<const T*>(x + static_cast<size_t>(row) * cols);
    const int vecs = cols / V;
    int i = lane;
    for (; i + (U - 1) * per_row < vecs; i += U * per_row) {
#pragma unroll
      for (int u = 0; u < U; ++u) acc[u] += Vec<V>::squares(r[i + u * per_row]);
    }
    for (; i < vecs; i += per_row) acc[0] += Vec<V>::squares(r[i]);
  }
  float sum = 0;
#pragma unroll
  for (int u = 0; u < U; ++u) sum += acc[u];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = per_row / 2; stride > 0; stride /= 2) {
    if (lane < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (lane == 0 && row < rows) out[row] = partial[threadIdx.x];
}

using Kernel = void (*)(const float*, float*, int, int, int);

template <int V>
Kernel with_unroll(int unroll) {
  switch (unroll) {
    case 1: return row_sum_squares<V, 1>;
    case 2: return row_sum_squares<V, 2>;
    case 4: return row_sum_squares<V, 4>;
    case 8: return row_sum_squares<V, 8>;
    default: return nullptr;
  }
}

Kernel kernel_for(int vec, int unroll) {
  switch (vec) {
    case 1: return with_unroll<1>(unroll);
    case 2: return with_unroll<2>(unroll);
    case 4: return with_unroll<4>(unroll);
    default: return nullptr;
  }
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s ROWS COLS --block B --rows-per-block R --vec 1|2|4 --unroll 1|2|4|8 [--repeat N]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage(argv[0]);
  const int rows = std::atoi(argv[1]), cols = std::atoi(argv[2]);
  int block = 256, per_block = 1, vec = 1, unroll = 1, repeat = 20;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (flag == "--block") block = v;
    else if (flag == "--rows-per-block") per_block = v;
    else if (flag == "--vec") vec = v;
    else if (flag == "--unroll") unroll = v;
    else if (flag == "--repeat") repeat = v;
    else return usage(argv[0]);
  }
  const Kernel kernel = kernel_for(vec, unroll);
  // Whole warps a row, a power of two of them (the reduction halves), and rows of whole vectors.
  const int per_row = per_block > 0 ? block / per_block : 0;
  if (rows <= 0 || cols <= 0 || repeat <= 0 || !kernel || block > 1024 || per_block <= 0 || per_row < 32 ||
      per_row * per_block != block || (per_row & (per_row - 1)) != 0 || cols % vec != 0)
    return usage(argv[0]);
  const size_t count = static_cast<size_t>(rows) * cols;
  float *x = nullptr, *out = nullptr;
  GPU_CHECK(gpuMalloc(&x, count * sizeof(float)));
  GPU_CHECK(gpuMalloc(&out, rows * sizeof(float)));
  fill<<<1024, 256>>>(x, count);
  GPU_CHECK(gpuGetLastError());
  const int blocks = (rows + per_block - 1) / per_block;
  const size_t shared = static_cast<size_t>(block) * sizeof(float);
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));
  std::vector<float> ms(repeat);
  for (int r = 0; r < repeat; ++r) {
    GPU_CHECK(gpuEventRecord(start, 0));
    kernel<<<blocks, block, shared>>>(x, out, rows, cols, per_block);
    GPU_CHECK(gpuGetLastError());
    GPU_CHECK(gpuEventRecord(stop, 0));
    GPU_CHECK(gpuEventSynchronize(stop));
    GPU_CHECK(gpuEventElapsedTime(&ms[r], start, stop));
  }
  std::vector<float> result(rows);
  GPU_CHECK(gpuMemcpy(result.data(), out, rows * sizeof(float), gpuMemcpyDeviceToHost));
  int wrong = 0;
  for (int k = 0; k < 64; ++k) {
    const int row = static_cast<int>((k * 7919u) % static_cast<unsigned>(rows));
    double expected = 0;
    for (int c = 0; c < cols; ++c) {
      const double v = value_at(static_cast<size_t>(row) * cols + c);
      expected += v * v;
    }
    if (std::fabs(result[row] - expected) > 1e-4 * expected + 1e-3) ++wrong;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("row_sum_squares rows=%d cols=%d block=%d rows_per_block=%d vec=%d unroll=%d median_ms=%.4f\n", rows, cols, block,
              per_block, vec, unroll, ms[ms.size() / 2]);
  GPU_CHECK(gpuFree(x));
  GPU_CHECK(gpuFree(out));
  if (wrong) {
    std::fprintf(stderr, "rowsum: %d wrong rows\n", wrong);
    return 1;
  }
  return 0;
}
