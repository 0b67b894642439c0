#pragma once
// What the stream and graph programs share: a kernel body that spins for a number of clock cycles,
// how many cycles a time takes, a graph node that runs such a kernel on one thread, and the
// launches of a graph.
#include <cstddef>

#include "../../../examples/common/gpu_compat.hpp"

__device__ inline void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// Clock cycles of device 0 that take `us` microseconds (at its base clock, as clock64 counts).
inline long long spin_cycles(double us) {
  int clock_khz = 0;
  GPU_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  return static_cast<long long>(us * clock_khz / 1000.0);
}

/// Instantiates the graph and launches it `rounds` times on a stream of its own, then waits.
inline void launch_graph(cudaGraph_t graph, int rounds) {
  cudaGraphExec_t exec;
  GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t stream;
  GPU_CHECK(cudaStreamCreate(&stream));
  for (int r = 0; r < rounds; ++r) GPU_CHECK(cudaGraphLaunch(exec, stream));
  GPU_CHECK(cudaStreamSynchronize(stream));
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
