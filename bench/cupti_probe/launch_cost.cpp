// rpl-launch-cost: what each CUPTI activity kind and callback set costs one host API call, measured
// in one process under the probe (CUDA_INJECTION64_PATH=librpl_cupti_probe.so
// RPL_PROBE=subscribe,switch), which switches them between chunks (rpl_probe_switch), so that
// every comparison is paired within a round rather than spread between processes.
// Each round times, under each set in turn (rotating the order): N launches of an empty kernel
// (cudaLaunchKernel, loaded from PTX), N cudaStreamQuery calls (a call no set follows) and N
// cudaEventRecord calls (an edge call). Prints, per set and call, nanoseconds per call: the
// median and the fastest round, and the median over rounds of the ratio to the first set.
//   usage: rpl-launch-cost ROUNDS N "SET|SET|..."   (a SET: words of rpl_probe_switch, or none)
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* const kEmptyKernel = R"(.version 7.0
.target sm_52
.address_size 64
.visible .entry empty() { ret; }
)";

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "rpl-launch-cost: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

template <typename Call>
double ns_per_call(int n, Call call) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) call();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: rpl-launch-cost ROUNDS N \"SET|SET|...\"\n");
    return 2;
  }
  const int rounds = std::atoi(argv[1]), n = std::atoi(argv[2]);
  std::vector<std::string> sets;
  std::stringstream list(argv[3]);
  for (std::string s; std::getline(list, s, '|');) sets.push_back(s);
  if (rounds < 1 || n < 1 || sets.empty()) {
    std::fprintf(stderr, "rpl-launch-cost: ROUNDS and N must be positive and a SET given\n");
    return 2;
  }
  const char* probe_path = std::getenv("CUDA_INJECTION64_PATH");
  void* probe = probe_path ? dlopen(probe_path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  check(cudaFree(nullptr), "start");  // the injection library loads with the context
  if (!probe) probe = probe_path ? dlopen(probe_path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  auto* switch_to = probe ? reinterpret_cast<long (*)(const char*)>(dlsym(probe, "rpl_probe_switch")) : nullptr;
  if (!switch_to) {
    std::fprintf(stderr, "rpl-launch-cost: run under the CUPTI probe with RPL_PROBE=subscribe,switch\n");
    return 2;
  }
  cudaLibrary_t library;
  cudaKernel_t kernel;
  check(cudaLibraryLoadData(&library, kEmptyKernel, nullptr, nullptr, 0, nullptr, nullptr, 0), "load the kernel");
  check(cudaLibraryGetKernel(&kernel, library, "empty"), "find the kernel");
  cudaStream_t stream;
  cudaEvent_t event;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "event");

  const auto launch = [&] { cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(32), nullptr, 0, stream); };
  const auto query = [&] { cudaStreamQuery(stream); };
  const auto record = [&] { cudaEventRecord(event, stream); };
  const char* const calls[] = {"cudaLaunchKernel", "cudaStreamQuery", "cudaEventRecord"};
  std::map<std::string, std::vector<double>> ns[3];
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < sets.size(); ++k) {
      const std::string& set = sets[(k + r) % sets.size()];
      switch_to(set.c_str());
      for (int i = 0; i < 100; ++i) launch();  // the switch settles
      check(cudaStreamSynchronize(stream), "synchronize");
      ns[0][set].push_back(ns_per_call(n, launch));
      check(cudaStreamSynchronize(stream), "synchronize");
      ns[1][set].push_back(ns_per_call(n, query));
      ns[2][set].push_back(ns_per_call(n, record));
      check(cudaStreamSynchronize(stream), "synchronize");
    }
  }
  switch_to("");
  std::printf("%-18s %-36s %9s %9s %7s\n", "call", "set", "median_ns", "min_ns", "paired");
  for (int c = 0; c < 3; ++c) {
    const auto& first = ns[c][sets[0]];
    for (const auto& set : sets) {
      const auto& v = ns[c][set];
      std::vector<double> ratios;
      for (size_t i = 0; i < v.size(); ++i) ratios.push_back(v[i] / first[i]);
      std::printf("%-18s %-36s %9.1f %9.1f %7.3f\n", calls[c], set.c_str(), median(v), *std::min_element(v.begin(), v.end()),
                  median(ratios));
    }
  }
  return 0;
}
