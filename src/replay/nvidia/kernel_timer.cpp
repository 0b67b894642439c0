#include "kernel_timer.hpp"

#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include <rpl/core/error.hpp>

#include "cu_check.hpp"

namespace rpl::replay {
namespace {

std::mutex records_mutex;
std::vector<std::pair<uint64_t, uint64_t>> kernel_records;  // start, end in ns

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard lock(records_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      if (k->name && std::strcmp(k->name, "rpl_touch") == 0) continue;  // the L2 flush, not the replayed kernel
      kernel_records.emplace_back(k->start, k->end);
    }
  }
  std::free(buffer);
}

}  // namespace

KernelTimer::KernelTimer() {
  cupti_ = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS &&
           cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS;
  if (!cupti_) {
    check(cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
  }
}

KernelTimer::~KernelTimer() {
  if (cupti_) cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (start_) cuEventDestroy(start_);
  if (stop_) cuEventDestroy(stop_);
}

void KernelTimer::before_launch(CUstream stream) {
  if (!cupti_) check(cuEventRecord(start_, stream), "cuEventRecord");
}

void KernelTimer::after_launch(CUstream stream) {
  if (cupti_) {
    check(cuStreamSynchronize(stream), "the replayed kernel");
    return;
  }
  check(cuEventRecord(stop_, stream), "cuEventRecord");
  check(cuEventSynchronize(stop_), "the replayed kernel");
  float ms = 0;
  check(cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
  event_ms_.push_back(ms);
}

std::vector<double> KernelTimer::durations_ms() {
  if (!cupti_) return event_ms_;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard lock(records_mutex);
  std::sort(kernel_records.begin(), kernel_records.end());
  std::vector<double> out;
  for (const auto& [start, end] : kernel_records) out.push_back(static_cast<double>(end - start) / 1e6);
  return out;
}

}  // namespace rpl::replay
