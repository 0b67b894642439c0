// matmul_tunable --list
// matmul_tunable M N K --bm B --bn B --bk B --tm T --tn T [--repeat R]
// A tiled SGEMM whose tiles and thread counts are chosen at run time from 225 configurations, the
// autotuner's future target (648 in matmul_tunable_large, built from this file with
// RPL_SGEMM_LARGE_SPACE). Prints its own timing (median of R runs) and checks C against the CPU
// on sampled entries; exits 1 when wrong, 2 for bad usage or a configuration that does not exist.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "sgemm_tiled.hpp"

namespace {

std::vector<SgemmConfig> all_configs() {
  std::vector<SgemmConfig> c;
#ifdef RPL_SGEMM_LARGE_SPACE  // matmul_tunable_large
  add_sgemm_large_configs_bm16(c);
  add_sgemm_large_configs_bm32(c);
  add_sgemm_large_configs_bm64(c);
  add_sgemm_large_configs_bm128(c);
  add_sgemm_large_configs_bm256(c);
#else
  add_sgemm_configs_bm32(c);
  add_sgemm_configs_bm64(c);
  add_sgemm_configs_bm128(c);
#endif
  return c;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s --list | M N K --bm B --bn B --bk B --tm T --tn T [--repeat R]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const auto configs = all_configs();
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    std::printf("bm bn bk tm tn threads\n");
    for (const auto& c : configs) std::printf("%d %d %d %d %d %d\n", c.bm, c.bn, c.bk, c.tm, c.tn, c.threads());
    return 0;
  }
  if (argc < 4) return usage(argv[0]);
  const int M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  int bm = 64, bn = 64, bk = 16, tm = 4, tn = 4, repeat = 5;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (flag == "--bm") bm = v;
    else if (flag == "--bn") bn = v;
    else if (flag == "--bk") bk = v;
    else if (flag == "--tm") tm = v;
    else if (flag == "--tn") tn = v;
    else if (flag == "--repeat") repeat = v;
    else return usage(argv[0]);
  }
  if (M <= 0 || N <= 0 || K <= 0 || repeat <= 0) return usage(argv[0]);
  auto it = std::find_if(configs.begin(), configs.end(), [&](const SgemmConfig& c) {
    return c.bm == bm && c.bn == bn && c.bk == bk && c.tm == tm && c.tn == tn;
  });
  if (it == configs.end()) {
    std::fprintf(stderr, "no configuration bm=%d bn=%d bk=%d tm=%d tn=%d (see --list)\n", bm, bn, bk, tm, tn);
    return 2;
  }
  std::vector<float> a(static_cast<size_t>(M) * K), b(static_cast<size_t>(K) * N), c(static_cast<size_t>(M) * N);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 17) / 17.0f - 0.5f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 13) / 13.0f - 0.5f;
  float *dA, *dB, *dC;
  GPU_CHECK(gpuMalloc(&dA, a.size() * sizeof(float)));
  GPU_CHECK(gpuMalloc(&dB, b.size() * sizeof(float)));
  GPU_CHECK(gpuMalloc(&dC, c.size() * sizeof(float)));
  GPU_CHECK(gpuMemcpy(dA, a.data(), a.size() * sizeof(float), gpuMemcpyHostToDevice));
  GPU_CHECK(gpuMemcpy(dB, b.data(), b.size() * sizeof(float), gpuMemcpyHostToDevice));
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));
  std::vector<float> times;
  for (int r = 0; r < repeat; ++r) {
    GPU_CHECK(gpuEventRecord(start, 0));
    it->launch(M, N, K, dA, dB, dC);
    GPU_CHECK(gpuGetLastError());
    GPU_CHECK(gpuEventRecord(stop, 0));
    GPU_CHECK(gpuEventSynchronize(stop));
    float ms = 0;
    GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  GPU_CHECK(gpuMemcpy(c.data(), dC, c.size() * sizeof(float), gpuMemcpyDeviceToHost));
  int wrong = 0;
  for (int s = 0; s < 256; ++s) {
    const int i = static_cast<int>((s * 7919u) % static_cast<unsigned>(M)), j = static_cast<int>((s * 104729u) % static_cast<unsigned>(N));
    double expect = 0;
    for (int k = 0; k < K; ++k) expect += static_cast<double>(a[static_cast<size_t>(i) * K + k]) * b[static_cast<size_t>(k) * N + j];
    if (std::fabs(c[static_cast<size_t>(i) * N + j] - expect) > 1e-3 * (1.0 + std::fabs(expect))) ++wrong;
  }
  std::sort(times.begin(), times.end());
  const double gflops = 2.0 * M * N * K / (times[times.size() / 2] * 1e6);
  std::printf("config: bm=%d bn=%d bk=%d tm=%d tn=%d threads=%d\ntime_ms: %.4f\ngflops: %.1f\n", bm, bn, bk, tm, tn,
              it->threads(), times[times.size() / 2], gflops);
  GPU_CHECK(gpuFree(dA));
  GPU_CHECK(gpuFree(dB));
  GPU_CHECK(gpuFree(dC));
  if (wrong) {
    std::fprintf(stderr, "matmul: %d of 256 sampled entries wrong\n", wrong);
    return 1;
  }
  return 0;
}
