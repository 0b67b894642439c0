#include "l2_flush.hpp"

#include <rpl/core/error.hpp>

#include "cu_check.hpp"

namespace rpl::replay {
namespace {

// One volatile 32-bit load per thread (kept by the compiler, cached in L2), none stored.
constexpr const char* kTouchPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry rpl_touch(.param .u64 buf, .param .u64 words)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [words];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  setp.ge.u64 %p, %rd3, %rd2;
  @%p ret;
  shl.b64 %rd5, %rd3, 2;
  add.u64 %rd5, %rd1, %rd5;
  ld.volatile.global.u32 %r4, [%rd5];
  ret;
}
)";

constexpr unsigned kThreads = 256;

}  // namespace

L2Flush::L2Flush(CUdevice device) {
  int l2_bytes = 0;
  check(cuDeviceGetAttribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device), "reading the L2 size");
  words_ = 2ull * static_cast<unsigned long long>(l2_bytes) / 4;
  check(cuModuleLoadData(&module_, kTouchPtx), "loading the L2 flush kernel");
  check(cuModuleGetFunction(&touch_, module_, "rpl_touch"), "finding the L2 flush kernel");
  check(cuMemAlloc(&scratch_, words_ * 4), "allocating the L2 flush buffer");
  check(cuMemsetD32(scratch_, 0, words_), "clearing the L2 flush buffer");
}

L2Flush::~L2Flush() {
  if (scratch_) cuMemFree(scratch_);
  if (module_) cuModuleUnload(module_);
}

void L2Flush::enqueue(CUstream stream) {
  void* args[] = {&scratch_, &words_};
  const auto blocks = static_cast<unsigned>((words_ + kThreads - 1) / kThreads);
  check(cuLaunchKernel(touch_, blocks, 1, 1, kThreads, 1, 1, 0, stream, args, nullptr), "launching the L2 flush kernel");
}

}  // namespace rpl::replay
