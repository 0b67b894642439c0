// stencil_tunable N STEPS --bx X --by Y --rows R
// A 5-point Jacobi step on an N x N grid of floats, STEPS times, whose launch geometry is chosen
// at run time: blocks of X x Y threads, each thread updating R consecutive rows of one column (it
// keeps the rows above and below in registers as it walks down). The autotuner's launch-geometry
// space (stencil_space.json). Prints its own timing (median launch) and checks sampled points
// against the CPU; exits 1 when wrong, 2 for bad usage.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../common/gpu_compat.hpp"

__global__ void jacobi_rows(const float* in, float* out, int n, int rows) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * rows;
  if (x >= n || y0 >= n) return;
  const auto at = [&](int y, int c) { return in[static_cast<size_t>(y) * n + c]; };
  float above = y0 > 0 ? at(y0 - 1, x) : 0.0f;
  float here = at(y0, x);
  for (int r = 0; r < rows && y0 + r < n; ++r) {
    const int y = y0 + r;
    const float below = y + 1 < n ? at(y + 1, x) : 0.0f;
    const float left = x > 0 ? at(y, x - 1) : 0.0f, right = x + 1 < n ? at(y, x + 1) : 0.0f;
    out[static_cast<size_t>(y) * n + x] = 0.2f * (here + above + below + left + right);
    above = here;
    here = below;
  }
}

namespace {

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s N STEPS --bx X --by Y --rows R\n", argv0);
  return 2;
}

float reference(const std::vector<float>& g, int n, int y, int x) {
  const auto at = [&](int yy, int xx) { return yy < 0 || yy >= n || xx < 0 || xx >= n ? 0.0f : g[static_cast<size_t>(yy) * n + xx]; };
  return 0.2f * (at(y, x) + at(y - 1, x) + at(y + 1, x) + at(y, x - 1) + at(y, x + 1));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage(argv[0]);
  const int n = std::atoi(argv[1]), steps = std::atoi(argv[2]);
  int bx = 32, by = 8, rows = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (flag == "--bx") bx = v;
    else if (flag == "--by") by = v;
    else if (flag == "--rows") rows = v;
    else return usage(argv[0]);
  }
  if (n <= 0 || steps <= 0 || bx <= 0 || by <= 0 || rows <= 0 || bx * by > 1024) return usage(argv[0]);
  const size_t cells = static_cast<size_t>(n) * n;
  std::vector<float> host(cells), result(cells);
  for (size_t i = 0; i < cells; ++i) host[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
  float *a = nullptr, *b = nullptr;
  GPU_CHECK(gpuMalloc(&a, cells * sizeof(float)));
  GPU_CHECK(gpuMalloc(&b, cells * sizeof(float)));
  GPU_CHECK(gpuMemcpy(a, host.data(), cells * sizeof(float), gpuMemcpyHostToDevice));
  const dim3 block(bx, by), grid((n + bx - 1) / bx, (n + by * rows - 1) / (by * rows));
  gpuEvent_t start, stop;
  GPU_CHECK(gpuEventCreate(&start));
  GPU_CHECK(gpuEventCreate(&stop));
  std::vector<float> ms(steps);
  for (int s = 0; s < steps; ++s) {  // every step reads a and writes b: the result is one step's
    GPU_CHECK(gpuEventRecord(start, 0));
    jacobi_rows<<<grid, block>>>(a, b, n, rows);
    GPU_CHECK(gpuGetLastError());
    GPU_CHECK(gpuEventRecord(stop, 0));
    GPU_CHECK(gpuEventSynchronize(stop));
    GPU_CHECK(gpuEventElapsedTime(&ms[s], start, stop));
  }
  GPU_CHECK(gpuMemcpy(result.data(), b, cells * sizeof(float), gpuMemcpyDeviceToHost));
  int wrong = 0;
  for (int k = 0; k < 4096; ++k) {
    const int y = static_cast<int>((k * 7919u) % static_cast<unsigned>(n)), x = static_cast<int>((k * 104729u) % static_cast<unsigned>(n));
    if (std::fabs(result[static_cast<size_t>(y) * n + x] - reference(host, n, y, x)) > 1e-5f) ++wrong;
  }
  std::sort(ms.begin(), ms.end());
  std::printf("jacobi_rows n=%d bx=%d by=%d rows=%d median_ms=%.4f\n", n, bx, by, rows, ms[ms.size() / 2]);
  GPU_CHECK(gpuFree(a));
  GPU_CHECK(gpuFree(b));
  if (wrong) {
    std::fprintf(stderr, "stencil: %d wrong values\n", wrong);
    return 1;
  }
  return 0;
}
