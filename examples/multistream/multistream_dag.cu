// multistream_dag [SCALE_US]
// Six kernels on three streams joined by events into a known DAG; each kernel spins for a set
// time, so the program knows, and prints, the DAG's critical path. It checks that the whole run
// took at least the critical path and less than the serial sum; exits 1 otherwise.
//
//   stream 0:  A(2) ---------> B(3) ----------> D(1)
//   stream 1:       \-> C(5) ------------------/        (D waits for B and C)
//   stream 2:  E(1) ---------> F(2)                     (independent)
// Durations in units of SCALE_US microseconds (default 1000). Critical path: A C D = 8 units.
#include <string>
#include <vector>

#include "../common/gpu_compat.hpp"

int main(int argc, char** argv) {
  const double unit_us = argc > 1 ? std::atof(argv[1]) : 1000.0;
  if (unit_us <= 0) {
    std::fprintf(stderr, "usage: %s [SCALE_US > 0]\n", argv[0]);
    return 2;
  }
  struct Node {
    const char* name;
    int stream;
    double units;
  };
  const std::vector<Node> nodes = {{"A", 0, 2}, {"B", 0, 3}, {"C", 1, 5}, {"D", 0, 1}, {"E", 2, 1}, {"F", 2, 2}};
  gpuStream_t streams[3];
  for (auto& s : streams) GPU_CHECK(gpuStreamCreate(&s));
  gpuEvent_t after_a, after_c, start, stop;
  for (auto* e : {&after_a, &after_c, &start, &stop}) GPU_CHECK(gpuEventCreate(e));
  int* flags;
  GPU_CHECK(gpuMalloc(&flags, 64 * sizeof(int)));
  auto run = [&](int i) {
    const auto& n = nodes[static_cast<size_t>(i)];
    spin_kernel<<<1, 32, 0, streams[n.stream]>>>(static_cast<unsigned long long>(n.units * unit_us * 1000.0), flags + i);
    GPU_CHECK(gpuGetLastError());
  };
  GPU_CHECK(gpuDeviceSynchronize());
  GPU_CHECK(gpuEventRecord(start, streams[0]));
  GPU_CHECK(gpuStreamWaitEvent(streams[2], start, 0));
  run(0);                                              // A
  GPU_CHECK(gpuEventRecord(after_a, streams[0]));
  GPU_CHECK(gpuStreamWaitEvent(streams[1], after_a, 0));
  run(2);                                              // C after A
  GPU_CHECK(gpuEventRecord(after_c, streams[1]));
  run(1);                                              // B after A (same stream)
  GPU_CHECK(gpuStreamWaitEvent(streams[0], after_c, 0));
  run(3);                                              // D after B and C
  run(4);                                              // E
  run(5);                                              // F after E
  GPU_CHECK(gpuEventRecord(stop, streams[0]));
  GPU_CHECK(gpuDeviceSynchronize());
  float ms = 0;
  GPU_CHECK(gpuEventElapsedTime(&ms, start, stop));
  const double critical_ms = (2 + 5 + 1) * unit_us / 1000.0, serial_ms = (2 + 3 + 5 + 1 + 1 + 2) * unit_us / 1000.0;
  std::printf("dag: A->B, A->C, B->D, C->D, E->F\ncritical_path: A C D\ncritical_path_ms: %.3f\nmeasured_ms: %.3f\n",
              critical_ms, ms);
  for (auto& s : streams) GPU_CHECK(gpuStreamDestroy(s));
  GPU_CHECK(gpuFree(flags));
  if (ms < critical_ms * 0.999 || ms >= serial_ms) {
    std::fprintf(stderr, "multistream_dag: measured %.3f ms, expected between %.3f and %.3f\n", ms, critical_ms, serial_ms);
    return 1;
  }
  return 0;
}
