// launch_patterns MODE: programs the GPU tests trace.
//   tiny N         N empty kernels (tracer overhead on many short launches)
//   long N MS      N kernels of MS milliseconds each (overhead on long ones)
//   threads        kernels from four host threads on their own streams; exit() from a worker
//   graph          a CUDA Graph of three kernels, launched twice, and a cooperative launch
//   none           never touches the GPU
//   cupti          subscribes to CUPTI itself before touching the GPU: a second CUPTI client
#include <cstring>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <cupti.h>

#include "../../../examples/common/gpu_compat.hpp"

__global__ void empty_kernel() {}

__global__ void add_one(int* data) { atomicAdd(data + threadIdx.x % 32, 1); }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "none") == 0) return 0;
  if (std::strcmp(mode, "cupti") == 0) {
    CUpti_SubscriberHandle handle;
    const CUptiResult r = cuptiSubscribe(&handle, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr);
    std::printf("own cuptiSubscribe: %d\n", static_cast<int>(r));
  }
  int* flags;
  GPU_CHECK(gpuMalloc(&flags, 1024 * sizeof(int)));
  if (std::strcmp(mode, "tiny") == 0 && argc > 2) {
    const long n = std::atol(argv[2]);
    for (long i = 0; i < n; ++i) empty_kernel<<<1, 32>>>();
    GPU_CHECK(gpuDeviceSynchronize());
  } else if (std::strcmp(mode, "long") == 0 && argc > 3) {
    const long n = std::atol(argv[2]);
    const double ms = std::atof(argv[3]);
    for (long i = 0; i < n; ++i) spin_kernel<<<1, 32>>>(static_cast<unsigned long long>(ms * 1e6), flags);
    GPU_CHECK(gpuDeviceSynchronize());
  } else if (std::strcmp(mode, "threads") == 0) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([t, flags] {
        gpuStream_t s;
        GPU_CHECK(gpuStreamCreate(&s));
        for (int i = 0; i < 250; ++i) add_one<<<1, 64, 0, s>>>(flags + 32 * t);
        GPU_CHECK(cudaStreamSynchronize(s));
        // The last thread ends the process from outside main: nothing may be lost.
        if (t == 3) std::exit(0);
      });
      if (t < 3) threads.back().join();
    }
    threads.back().join();
  } else if (std::strcmp(mode, "graph") == 0) {
    cudaStream_t s;
    GPU_CHECK(cudaStreamCreate(&s));
    cudaGraph_t graph;
    GPU_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 3; ++i) add_one<<<1, 64, 0, s>>>(flags);
    GPU_CHECK(cudaStreamEndCapture(s, &graph));
    cudaGraphExec_t exec;
    GPU_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    GPU_CHECK(cudaGraphLaunch(exec, s));
    GPU_CHECK(cudaGraphLaunch(exec, s));
    GPU_CHECK(cudaStreamSynchronize(s));
    void* args[] = {&flags};
    GPU_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(add_one), dim3(2), dim3(64), args, 0, s));
    GPU_CHECK(cudaStreamSynchronize(s));
  } else if (std::strcmp(mode, "cupti") == 0) {
    empty_kernel<<<1, 32>>>();
    GPU_CHECK(gpuDeviceSynchronize());
  } else {
    std::fprintf(stderr, "usage: %s tiny N | long N MS | threads | graph | none | cupti\n", argv[0]);
    return 2;
  }
  GPU_CHECK(gpuFree(flags));
  return 0;
}
