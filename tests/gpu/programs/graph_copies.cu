// graph_copies: a CUDA Graph whose nodes are not all kernels, launched ROUNDS times:
//   memset M -> kernel K (three units) -> memcpy C, and M -> kernel P (one unit) -> C.
// The critical path of a launch is M, K, C. Usage: graph_copies [UNIT_US] [ROUNDS]
#include <cstdio>
#include <cstdlib>

#include "spin_nodes.cuh"

__global__ void graph_k(long long cycles) { spin(cycles); }
__global__ void graph_p(long long cycles) { spin(cycles); }

int main(int argc, char** argv) {
  const double unit_us = argc > 1 ? std::atof(argv[1]) : 500;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  long long one = spin_cycles(unit_us), three = 3 * one;
  const size_t bytes = size_t(64) << 20;
  char *src = nullptr, *dst = nullptr;
  GPU_CHECK(cudaMalloc(&src, bytes));
  GPU_CHECK(cudaMalloc(&dst, bytes));
  cudaGraph_t graph;
  GPU_CHECK(cudaGraphCreate(&graph, 0));
  cudaMemsetParams set{};
  set.dst = src;
  set.value = 7;
  set.elementSize = 1;
  set.width = bytes;
  set.height = 1;
  cudaGraphNode_t m;
  GPU_CHECK(cudaGraphAddMemsetNode(&m, graph, nullptr, 0, &set));
  const cudaGraphNode_t kp[] = {add_spin_node(graph, graph_k, &three, &m, 1), add_spin_node(graph, graph_p, &one, &m, 1)};
  cudaGraphNode_t c;
  GPU_CHECK(cudaGraphAddMemcpyNode1D(&c, graph, kp, 2, dst, src, bytes, cudaMemcpyDeviceToDevice));
  launch_graph(graph, rounds);
  std::printf("graph_copies: %d launches of %.0f us units\n", rounds, unit_us);
  return 0;
}
