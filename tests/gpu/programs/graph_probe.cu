// graph_probe: what CUPTI says of CUDA Graphs, for modelling their edges. Builds a diamond graph
// (A -> B, A -> C, B -> D, C -> D) with the graph API and the same shape by stream capture, launches
// each twice, and prints CUPTI's resource callbacks (graph, node, dependency, exec, clone: with
// CUPTI's ids) and the kernel records (graph id, graph node id, correlation, stream).
#include <cupti.h>
#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "../../../examples/common/gpu_compat.hpp"

__global__ void node_kernel(int* out, int tag) { out[tag] = tag; }

namespace {
uint64_t node_id(CUgraphNode n) {
  uint64_t id = 0;
  if (n) cuptiGetGraphNodeId(n, &id);
  return id;
}
uint32_t graph_id(CUgraph g) {
  uint32_t id = 0;
  if (g) cuptiGetGraphId(g, &id);
  return id;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  // Some resource callbacks (during cuInit) come without data: only graph ones are read.
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || !data || cbid < CUPTI_CBID_RESOURCE_GRAPH_CREATED ||
      cbid > CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
    return;
  }
  const auto* r = static_cast<const CUpti_ResourceData*>(data);
  const auto* g = static_cast<const CUpti_GraphData*>(r->resourceDescriptor);
  if (!g) return;
  switch (cbid) {
    case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
      std::printf("graph_created graph=%u\n", graph_id(g->graph));
      break;
    case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
      std::printf("graph_cloned graph=%u original=%u\n", graph_id(g->graph), graph_id(g->originalGraph));
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
      std::printf("node_created graph=%u node=%llu type=%d\n", graph_id(g->graph), (unsigned long long)node_id(g->node),
                  static_cast<int>(g->nodeType));
      break;
    case CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED:
      std::printf("dependency graph=%u from=%llu to=%llu\n", graph_id(g->graph), (unsigned long long)node_id(g->dependency),
                  (unsigned long long)node_id(g->node));
      break;
    case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED: {
      uint32_t exec = 0;
      cuptiGetGraphExecId(g->graphExec, &exec);
      std::printf("exec_created exec=%u graph=%u\n", exec, graph_id(g->graph));
      break;
    }
    case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
      std::printf("node_cloned graph=%u node=%llu original=%llu\n", graph_id(g->graph), (unsigned long long)node_id(g->node),
                  (unsigned long long)node_id(g->originalNode));
      break;
    default:
      break;
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::printf("kernel graph=%u node=%llu correlation=%u stream=%u start=%llu end=%llu\n", k->graphId,
                  (unsigned long long)k->graphNodeId, k->correlationId, k->streamId, (unsigned long long)k->start,
                  (unsigned long long)k->end);
    }
  }
  std::free(buffer);
}

CUgraphNode add_kernel(cudaGraph_t graph, const cudaGraphNode_t* deps, size_t n, int* out, int tag) {
  void* args[] = {&out, &tag};
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(node_kernel);
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  p.kernelParams = args;
  cudaGraphNode_t node;
  GPU_CHECK(cudaGraphAddKernelNode(&node, graph, deps, n, &p));
  return node;
}
}  // namespace

void on_fatal(int) {
  void* frames[32];
  backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
  _exit(1);
}

int main() {
  std::signal(SIGSEGV, on_fatal);
  setvbuf(stdout, nullptr, _IONBF, 0);
  CUpti_SubscriberHandle sub;
  cuptiSubscribe(&sub, on_callback, nullptr);
  cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  int* out = nullptr;
  GPU_CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  cudaStream_t s, s2;
  GPU_CHECK(cudaStreamCreate(&s));
  GPU_CHECK(cudaStreamCreate(&s2));

  std::printf("== graph API\n");
  cudaGraph_t graph;
  GPU_CHECK(cudaGraphCreate(&graph, 0));
  CUgraphNode a = add_kernel(graph, nullptr, 0, out, 1);
  CUgraphNode b = add_kernel(graph, &a, 1, out, 2);
  CUgraphNode c = add_kernel(graph, &a, 1, out, 3);
  CUgraphNode bc[] = {b, c};
  add_kernel(graph, bc, 2, out, 4);
  cudaGraphExec_t exec;
  GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 2; ++i) GPU_CHECK(cudaGraphLaunch(exec, s));
  GPU_CHECK(cudaStreamSynchronize(s));

  std::printf("== stream capture\n");
  cudaEvent_t fork, join;
  GPU_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  GPU_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  cudaGraph_t captured;
  GPU_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  node_kernel<<<1, 1, 0, s>>>(out, 11);
  GPU_CHECK(cudaEventRecord(fork, s));
  GPU_CHECK(cudaStreamWaitEvent(s2, fork, 0));
  node_kernel<<<1, 1, 0, s>>>(out, 12);
  node_kernel<<<1, 1, 0, s2>>>(out, 13);
  GPU_CHECK(cudaEventRecord(join, s2));
  GPU_CHECK(cudaStreamWaitEvent(s, join, 0));
  node_kernel<<<1, 1, 0, s>>>(out, 14);
  GPU_CHECK(cudaStreamEndCapture(s, &captured));
  cudaGraphExec_t captured_exec;
  GPU_CHECK(cudaGraphInstantiate(&captured_exec, captured, 0));
  for (int i = 0; i < 2; ++i) GPU_CHECK(cudaGraphLaunch(captured_exec, s));
  GPU_CHECK(cudaDeviceSynchronize());
  std::fflush(stdout);
  cuptiActivityFlushAll(1);
  return 0;
}
