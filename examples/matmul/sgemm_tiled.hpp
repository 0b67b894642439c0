#pragma once
// A tiled SGEMM (C = A * B, row-major) whose tile sizes are template parameters: BM x BN output
// tile per block, BK deep, TM x TN outputs per thread, so (BM/TM)*(BN/TN) threads per block.
#include <vector>

#include "../common/gpu_compat.hpp"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
    sgemm_tiled(int M, int N, int K, const float* A, const float* B, float* C) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += kThreads) {
      const int r = i / BK, c = i % BK, gr = row0 + r, gc = k0 + c;
      As[c][r] = (gr < M && gc < K) ? A[static_cast<size_t>(gr) * K + gc] : 0.0f;
    }
    for (int i = threadIdx.x; i < BK * BN; i += kThreads) {
      const int r = i / BN, c = i % BN, gr = k0 + r, gc = col0 + c;
      Bs[r][c] = (gr < K && gc < N) ? B[static_cast<size_t>(gr) * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int m = 0; m < TM; ++m) a[m] = As[k][ty * TM + m];
#pragma unroll
      for (int n = 0; n < TN; ++n) b[n] = Bs[k][tx * TN + n];
#pragma unroll
      for (int m = 0; m < TM; ++m)
#pragma unroll
        for (int n = 0; n < TN; ++n) acc[m][n] += a[m] * b[n];
    }
    __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < TM; ++m) {
#pragma unroll
    for (int n = 0; n < TN; ++n) {
      const int r = row0 + ty * TM + m, c = col0 + tx * TN + n;
      if (r < M && c < N) C[static_cast<size_t>(r) * N + c] = acc[m][n];
    }
  }
}

struct SgemmConfig {
  int bm, bn, bk, tm, tn;
  int threads() const { return (bm / tm) * (bn / tn); }
  void (*launch)(int M, int N, int K, const float* A, const float* B, float* C);
};

template <int BM, int BN, int BK, int TM, int TN>
void launch_sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
  dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  sgemm_tiled<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN)>>>(M, N, K, A, B, C);
}

// Configurations of 32 to 1024 threads per block whose tiles fit the 48 KiB of static shared memory.
template <int BM, int BN, int BK, int TM, int TN>
void add_config(std::vector<SgemmConfig>& configs) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kSharedBytes = (BM + BN) * BK * 4;
  if constexpr (kThreads >= 32 && kThreads <= 1024 && kSharedBytes <= 48 * 1024) configs.push_back({BM, BN, BK, TM, TN, &launch_sgemm<BM, BN, BK, TM, TN>});
}

#define RPL_SGEMM_THREAD_TILES(BM, BN, BK)                                                        \
  add_config<BM, BN, BK, 2, 2>(c); add_config<BM, BN, BK, 2, 4>(c); add_config<BM, BN, BK, 2, 8>(c); \
  add_config<BM, BN, BK, 4, 2>(c); add_config<BM, BN, BK, 4, 4>(c); add_config<BM, BN, BK, 4, 8>(c); \
  add_config<BM, BN, BK, 8, 2>(c); add_config<BM, BN, BK, 8, 4>(c); add_config<BM, BN, BK, 8, 8>(c);
#define RPL_SGEMM_DEPTHS(BM, BN) \
  RPL_SGEMM_THREAD_TILES(BM, BN, 8) RPL_SGEMM_THREAD_TILES(BM, BN, 16) RPL_SGEMM_THREAD_TILES(BM, BN, 32)
#define RPL_SGEMM_WIDTHS(BM) RPL_SGEMM_DEPTHS(BM, 32) RPL_SGEMM_DEPTHS(BM, 64) RPL_SGEMM_DEPTHS(BM, 128)

// One per translation unit (BM = 32, 64, 128), so the instantiations compile in parallel.
void add_sgemm_configs_bm32(std::vector<SgemmConfig>& c);
void add_sgemm_configs_bm64(std::vector<SgemmConfig>& c);
void add_sgemm_configs_bm128(std::vector<SgemmConfig>& c);

// matmul_tunable_large's space (matmul_large_space.json, 648 configurations): BM and BN of 16 to
// 256, BK of 8 to 64, one translation unit per BM.
#define RPL_SGEMM_DEPTHS_LARGE(BM, BN) RPL_SGEMM_DEPTHS(BM, BN) RPL_SGEMM_THREAD_TILES(BM, BN, 64)
#define RPL_SGEMM_WIDTHS_LARGE(BM)                                                                 \
  RPL_SGEMM_DEPTHS_LARGE(BM, 16) RPL_SGEMM_DEPTHS_LARGE(BM, 32) RPL_SGEMM_DEPTHS_LARGE(BM, 64) \
  RPL_SGEMM_DEPTHS_LARGE(BM, 128) RPL_SGEMM_DEPTHS_LARGE(BM, 256)
void add_sgemm_large_configs_bm16(std::vector<SgemmConfig>& c);
void add_sgemm_large_configs_bm32(std::vector<SgemmConfig>& c);
void add_sgemm_large_configs_bm64(std::vector<SgemmConfig>& c);
void add_sgemm_large_configs_bm128(std::vector<SgemmConfig>& c);
void add_sgemm_large_configs_bm256(std::vector<SgemmConfig>& c);
