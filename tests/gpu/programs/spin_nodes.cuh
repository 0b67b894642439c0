#pragma once
// What the stream and graph programs share: a kernel body that spins for a number of clock cycles,
// and a graph node that runs such a kernel on one thread.
#include <cstddef>

#include "../../../examples/common/gpu_compat.hpp"

__device__ inline void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// A kernel node running kernel(*cycles) on one thread, after deps.
inline cudaGraphNode_t add_spin_node(cudaGraph_t graph, void (*kernel)(long long), long long* cycles,
                                     const cudaGraphNode_t* deps, size_t n) {
  void* args[] = {cycles};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(kernel);
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  p.kernelParams = args;
  cudaGraphNode_t node;
  GPU_CHECK(cudaGraphAddKernelNode(&node, graph, deps, n, &p));
  return node;
}
