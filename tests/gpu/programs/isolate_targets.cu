// Kernels for rocm-perf isolate and replay, each with something a capture must get right:
//   scale_with_globals  reads a __constant__ array and counts its launches in a __device__ variable
//   inplace_axpy        updates its buffer in place (replayed with --no-recopy it drifts)
//   gather_pointers     follows pointers stored in device memory (wrong addresses would fault)
//   reverse_shared      uses 64 KiB of dynamic shared memory (needs the opt-in attribute)
//   cluster_copy        is launched with a cluster of 2 blocks (cudaLaunchKernelEx)
//   pool_fill           writes memory from cudaMallocAsync's pool
// Usage: isolate_targets [iterations]. Prints a checksum of every output.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t e = (call);                                                                \
    if (e != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

__constant__ float g_scale[4];
__device__ unsigned long long g_launches;

__global__ void scale_with_globals(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * g_scale[i % 4];
  if (i == 0) atomicAdd(&g_launches, 1ull);
}

__global__ void inplace_axpy(float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1.0f;
}

__global__ void gather_pointers(float* const* tables, const int* index, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tables[index[i] % 4][i];
}

__global__ void reverse_shared(float* data, int n) {
  extern __shared__ float tile[];  // 16384 floats
  const int base = blockIdx.x * 16384;
  for (int j = threadIdx.x; j < 16384; j += blockDim.x) tile[j] = base + j < n ? data[base + j] : 0.0f;
  __syncthreads();
  for (int j = threadIdx.x; j < 16384; j += blockDim.x) {
    if (base + j < n) data[base + j] = tile[16383 - j];
  }
}

__global__ void cluster_copy(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + static_cast<float>(blockIdx.x % 2);
}

__global__ void pool_fill(float* out, int n, float value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + static_cast<float>(i % 7);
}

double checksum(const float* device, int n) {
  std::vector<float> host(n);
  CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += host[i] * ((i % 13) + 1);
  return sum;
}

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 3;
  const int n = 1 << 20;
  const int threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>((i * 37) % 1000) / 100.0f;
  float *in, *out, *x, *shared_data, *cluster_out;
  float* tables[4];
  int* index;
  float** device_tables;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&shared_data, n * sizeof(float)));
  CHECK(cudaMalloc(&cluster_out, n * sizeof(float)));
  CHECK(cudaMalloc(&index, n * sizeof(int)));
  CHECK(cudaMalloc(&device_tables, sizeof tables));
  for (auto& t : tables) {
    CHECK(cudaMalloc(&t, n * sizeof(float)));
    CHECK(cudaMemcpy(t, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  CHECK(cudaMemcpy(device_tables, tables, sizeof tables, cudaMemcpyHostToDevice));
  std::vector<int> host_index(n);
  for (int i = 0; i < n; ++i) host_index[i] = (i * 7) % 5;
  CHECK(cudaMemcpy(index, host_index.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(shared_data, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const float scale[4] = {0.5f, 1.5f, 2.0f, -1.0f};
  CHECK(cudaMemcpyToSymbol(g_scale, scale, sizeof scale));
  const int shared_bytes = 16384 * sizeof(float);
  CHECK(cudaFuncSetAttribute(reverse_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  float* pooled;
  CHECK(cudaMallocAsync(&pooled, n * sizeof(float), stream));

  for (int it = 0; it < iterations; ++it) {
    scale_with_globals<<<blocks, threads>>>(out, in, n);
    inplace_axpy<<<blocks, threads>>>(x, 0.5f, n);
    gather_pointers<<<blocks, threads>>>(device_tables, index, out, n);
    reverse_shared<<<(n + 16383) / 16384, 1024, shared_bytes>>>(shared_data, n);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 2, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&config, cluster_copy, cluster_out, static_cast<const float*>(in), n));
    pool_fill<<<blocks, threads, 0, stream>>>(pooled, n, static_cast<float>(it));
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  unsigned long long launches = 0;
  CHECK(cudaMemcpyFromSymbol(&launches, g_launches, sizeof launches));
  std::printf("isolate_targets: out %.6e x %.6e shared %.6e cluster %.6e pool %.6e launches %llu\n", checksum(out, n),
              checksum(x, n), checksum(shared_data, n), checksum(cluster_out, n), checksum(pooled, n), launches);
  return 0;
}
