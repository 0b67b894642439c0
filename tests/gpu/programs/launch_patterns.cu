// launch_patterns MODE: programs the GPU tests trace.
//   tiny N         N empty kernels (tracer overhead on many short launches)
//   long N MS      N kernels of MS milliseconds each (overhead on long ones)
//   threads        kernels from four host threads on their own streams; exit() from a worker
//   graph          a CUDA Graph of three kernels, launched twice, and a cooperative launch
//   none           never touches the GPU
// tiny and long print, on stderr, how long CUDA start-up, the launches and the final wait took,
// so an overhead benchmark can say where traced time goes.
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "../../../examples/common/gpu_compat.hpp"

__global__ void empty_kernel() {}

__global__ void add_one(int* data) { atomicAdd(data + threadIdx.x % 32, 1); }

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "none") == 0) return 0;
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  int* flags;
  GPU_CHECK(gpuMalloc(&flags, 1024 * sizeof(int)));
  const auto ready = clock::now();
  auto phases = [&](clock::time_point launched) {
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    std::fprintf(stderr, "phases: start-up %.1f ms, launches %.1f ms, wait %.1f ms\n", ms(start, ready),
                 ms(ready, launched), ms(launched, clock::now()));
  };
  if (std::strcmp(mode, "tiny") == 0 && argc > 2) {
    const long n = std::atol(argv[2]);
    for (long i = 0; i < n; ++i) empty_kernel<<<1, 32>>>();
    const auto launched = clock::now();
    GPU_CHECK(gpuDeviceSynchronize());
    phases(launched);
  } else if (std::strcmp(mode, "long") == 0 && argc > 3) {
    const long n = std::atol(argv[2]);
    const double ms = std::atof(argv[3]);
    for (long i = 0; i < n; ++i) spin_kernel<<<1, 32>>>(static_cast<unsigned long long>(ms * 1e6), flags);
    const auto launched = clock::now();
    GPU_CHECK(gpuDeviceSynchronize());
    phases(launched);
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
  } else {
    std::fprintf(stderr, "usage: %s tiny N | long N MS | threads | graph | none\n", argv[0]);
    return 2;
  }
  GPU_CHECK(gpuFree(flags));
  return 0;
}
