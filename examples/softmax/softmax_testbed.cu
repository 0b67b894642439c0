// softmax_testbed ROWS COLS LAUNCHES [--crash-after N] [--scale S]
// A deliberately naive row softmax: one thread per row, three serial passes over its columns,
// uncoalesced loads. The optimizer's target. Checks its result on the CPU; exits 1 when wrong.
// --crash-after N dies of SIGSEGV after N launches (for the tracer's crash test); --scale S
// multiplies the inputs (in -5..5 by default), so that at 100 a softmax that does not subtract
// the row's maximum overflows.
#include <cmath>
#include <csignal>
#include <cstring>
#include <vector>

#include "../common/gpu_compat.hpp"

__global__ void softmax_naive(const float* in, float* out, int rows, int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float* x = in + static_cast<size_t>(row) * cols;
  float* y = out + static_cast<size_t>(row) * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += expf(x[c] - m);
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / sum;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ROWS COLS LAUNCHES [--crash-after N] [--scale S]\n", argv[0]);
    return 2;
  }
  const int rows = std::atoi(argv[1]), cols = std::atoi(argv[2]), launches = std::atoi(argv[3]);
  int crash_after = -1;
  float scale = 1;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--crash-after") == 0) crash_after = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--scale") == 0) scale = static_cast<float>(std::atof(argv[i + 1]));
  }
  if (rows <= 0 || cols <= 0 || launches <= 0) {
    std::fprintf(stderr, "ROWS, COLS and LAUNCHES must be positive\n");
    return 2;
  }
  const size_t n = static_cast<size_t>(rows) * cols;
  std::vector<float> host(n), result(n);
  for (size_t i = 0; i < n; ++i) host[i] = scale * (static_cast<float>((i * 2654435761u) % 1000) / 100.0f - 5.0f);
  float *in = nullptr, *out = nullptr;
  GPU_CHECK(gpuMalloc(&in, n * sizeof(float)));
  GPU_CHECK(gpuMalloc(&out, n * sizeof(float)));
  GPU_CHECK(gpuMemcpy(in, host.data(), n * sizeof(float), gpuMemcpyHostToDevice));
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));
  const int block = 256;
  GPU_CHECK(gpuEventRecord(start, 0));
  for (int i = 0; i < launches; ++i) {
    softmax_naive<<<(rows + block - 1) / block, block>>>(in, out, rows, cols);
    GPU_CHECK(gpuGetLastError());
    if (i + 1 == crash_after) {
      GPU_CHECK(gpuDeviceSynchronize());
      std::raise(SIGSEGV);
    }
  }
  GPU_CHECK(gpuEventRecord(stop, 0));
  GPU_CHECK(gpuEventSynchronize(stop));
  float ms = 0;
  GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
  GPU_CHECK(gpuMemcpy(result.data(), out, n * sizeof(float), gpuMemcpyDeviceToHost));
  // Check a spread of rows against the CPU.
  int wrong = 0;
  for (int r = 0; r < rows; r += std::max(1, rows / 64)) {
    const float* x = host.data() + static_cast<size_t>(r) * cols;
    float m = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
    for (int c = 0; c < cols; ++c) sum += std::exp(x[c] - m);
    for (int c = 0; c < cols; ++c) {
      const float expect = std::exp(x[c] - m) / sum;
      if (std::fabs(result[static_cast<size_t>(r) * cols + c] - expect) > 1e-5f + 1e-3f * expect) ++wrong;
    }
  }
  std::printf("softmax_naive rows=%d cols=%d launches=%d time_per_launch_ms=%.4f\n", rows, cols, launches, ms / launches);
  GPU_CHECK(gpuFree(in));
  GPU_CHECK(gpuFree(out));
  if (wrong) {
    std::fprintf(stderr, "softmax: %d wrong values\n", wrong);
    return 1;
  }
  return 0;
}
