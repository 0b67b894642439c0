// stream_kinds_probe: what CUPTI says of each kind of stream (its STREAM activity records: context,
// id, creation flag) and which stream id each kernel ran on: the legacy default stream, a blocking
// stream, a non-blocking one and the per-thread default stream. Prints one line per record.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>

#include "../../../examples/common/gpu_compat.hpp"

__global__ void tag_kernel(int* out, int tag) { out[0] = tag; }

namespace {
void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_STREAM) {
      const auto* s = reinterpret_cast<const CUpti_ActivityStream*>(record);
      std::printf("stream context=%u stream=%u flag=%d priority=%u correlation=%u\n", s->contextId, s->streamId,
                  static_cast<int>(s->flag), s->priority, s->correlationId);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::printf("kernel context=%u stream=%u correlation=%u\n", k->contextId, k->streamId, k->correlationId);
    }
  }
  std::free(buffer);
}
}  // namespace

int main() {
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  int* out = nullptr;
  GPU_CHECK(cudaMalloc(&out, sizeof(int)));
  cudaStream_t blocking, non_blocking;
  GPU_CHECK(cudaStreamCreate(&blocking));
  GPU_CHECK(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking));
  std::printf("launch 1: legacy default stream\n");
  tag_kernel<<<1, 1>>>(out, 1);
  std::printf("launch 2: blocking stream\n");
  tag_kernel<<<1, 1, 0, blocking>>>(out, 2);
  std::printf("launch 3: non-blocking stream\n");
  tag_kernel<<<1, 1, 0, non_blocking>>>(out, 3);
  std::printf("launch 4: per-thread default stream\n");
  tag_kernel<<<1, 1, 0, cudaStreamPerThread>>>(out, 4);
  std::printf("launch 5: legacy default stream named cudaStreamLegacy\n");
  tag_kernel<<<1, 1, 0, cudaStreamLegacy>>>(out, 5);
  GPU_CHECK(cudaDeviceSynchronize());
  cuptiActivityFlushAll(1);
  return 0;
}
