// Which address hints cuMemAddressReserve honours: after the context exists, asks for 2 MiB (and
// larger) reservations at each hint given on the command line (hex), with alignment 0 and with an
// alignment equal to the size, and prints what came back. scripts/gpu/diag: the replayer's
// placement strategy rests on what this shows.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  cuInit(0);
  CUdevice dev;
  cuDeviceGet(&dev, 0);
  CUcontext ctx;
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  CUdeviceptr own = 0;
  cuMemAlloc(&own, 1 << 20);
  std::printf("cuMemAlloc gave %llx\n", static_cast<unsigned long long>(own));
  for (int i = 1; i < argc; ++i) {
    const unsigned long long hint = std::strtoull(argv[i], nullptr, 16);
    for (size_t size : {size_t(2) << 20, size_t(512) << 20}) {
      for (size_t align : {size_t(0), size}) {
        CUdeviceptr p = 0;
        const CUresult r = cuMemAddressReserve(&p, size, align, hint, 0);
        std::printf("hint %llx size %zu MiB align %zu MiB -> %d %llx %s\n", hint, size >> 20, align >> 20, r,
                    static_cast<unsigned long long>(p), p == hint ? "EXACT" : "");
        if (r == CUDA_SUCCESS) cuMemAddressFree(p, size);
      }
    }
  }
  return 0;
}
