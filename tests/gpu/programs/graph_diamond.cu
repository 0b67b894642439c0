// graph_diamond: a CUDA Graph A -> {B, C} -> D built with the graph API, launched ROUNDS times.
// A, B and D spin one unit each, C three: the critical path of a launch is A, C, D (5 units of the
// 6 the kernels take in all). Usage: graph_diamond [UNIT_US] [ROUNDS]
#include <cstdio>
#include <cstdlib>

#include "spin_nodes.cuh"

__global__ void graph_a(long long cycles) { spin(cycles); }
__global__ void graph_b(long long cycles) { spin(cycles); }
__global__ void graph_c(long long cycles) { spin(cycles); }
__global__ void graph_d(long long cycles) { spin(cycles); }

int main(int argc, char** argv) {
  const double unit_us = argc > 1 ? std::atof(argv[1]) : 500;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  long long one = spin_cycles(unit_us), three = 3 * one;
  cudaGraph_t graph;
  GPU_CHECK(cudaGraphCreate(&graph, 0));
  const cudaGraphNode_t a = add_spin_node(graph, graph_a, &one, nullptr, 0);
  const cudaGraphNode_t bc[] = {add_spin_node(graph, graph_b, &one, &a, 1), add_spin_node(graph, graph_c, &three, &a, 1)};
  add_spin_node(graph, graph_d, &one, bc, 2);
  launch_graph(graph, rounds);
  std::printf("graph_diamond: %d launches of %.0f us units\n", rounds, unit_us);
  return 0;
}
