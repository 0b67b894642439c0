#include "gpu_header_shim.hpp"

#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>

namespace rpl::optimize {
namespace {

// What kernels use: the execution-space attributes, launch bounds, the built-in index variables,
// barriers, vector types, and the usual math functions, intrinsics and atomics. Functions are declared loosely (variadic templates): calls must parse,
// not type-check exactly.
constexpr const char* kShim = R"(#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define INFINITY __builtin_huge_valf()
#define NAN __builtin_nanf("")
struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; __host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
extern const __device__ uint3 threadIdx, blockIdx;
extern const __device__ dim3 blockDim, gridDim;
extern const __device__ int warpSize;
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
template <typename... T> __device__ auto __shfl_sync(T...) { return 0.0f; }
template <typename... T> __device__ auto __shfl_xor_sync(T...) { return 0.0f; }
template <typename... T> __device__ auto __shfl_down_sync(T...) { return 0.0f; }
template <typename... T> __device__ auto __shfl_up_sync(T...) { return 0.0f; }
template <typename... T> __device__ auto __ldg(T...) { return 0.0f; }
#define RPL_VECTOR(T, N) struct T##N { T x, y, z, w; };
RPL_VECTOR(float, 2) RPL_VECTOR(float, 4) RPL_VECTOR(int, 2) RPL_VECTOR(int, 4) RPL_VECTOR(double, 2)
#undef RPL_VECTOR
// The device math, intrinsics and atomics kernels call: a call that resolves keeps the AST whole.
#define RPL_MATH_1(name) __device__ float name(float);
#define RPL_MATH_2(name) __device__ float name(float, float);
RPL_MATH_1(expf) RPL_MATH_1(exp2f) RPL_MATH_1(__expf) RPL_MATH_1(logf) RPL_MATH_1(log2f) RPL_MATH_1(__logf)
RPL_MATH_1(sqrtf) RPL_MATH_1(rsqrtf) RPL_MATH_1(fabsf) RPL_MATH_1(sinf) RPL_MATH_1(cosf) RPL_MATH_1(__sinf)
RPL_MATH_1(__cosf) RPL_MATH_1(tanhf) RPL_MATH_1(erff) RPL_MATH_1(floorf) RPL_MATH_1(ceilf) RPL_MATH_1(roundf)
RPL_MATH_1(truncf) RPL_MATH_1(__frcp_rn) RPL_MATH_1(__saturatef)
RPL_MATH_2(fmaxf) RPL_MATH_2(fminf) RPL_MATH_2(powf) RPL_MATH_2(__powf) RPL_MATH_2(__fdividef) RPL_MATH_2(copysignf)
RPL_MATH_2(fmodf)
__device__ float fmaf(float, float, float);
__device__ double exp(double); __device__ double log(double); __device__ double sqrt(double); __device__ double fabs(double);
__device__ double fmax(double, double); __device__ double fmin(double, double); __device__ double pow(double, double);
__device__ double floor(double); __device__ double ceil(double); __device__ double fma(double, double, double);
__device__ double tanh(double); __device__ double rsqrt(double);
__device__ int min(int, int); __device__ int max(int, int); __device__ unsigned min(unsigned, unsigned);
__device__ unsigned max(unsigned, unsigned); __device__ float min(float, float); __device__ float max(float, float);
__device__ long long clock64(); __device__ int __popc(unsigned); __device__ int __clz(int); __device__ int __ffs(int);
template <typename... T> __device__ auto atomicAdd(T...) { return 0; }
template <typename... T> __device__ auto atomicMax(T...) { return 0; }
template <typename... T> __device__ auto atomicMin(T...) { return 0; }
template <typename... T> __device__ auto atomicCAS(T...) { return 0; }
template <typename... T> __device__ auto atomicExch(T...) { return 0; }
template <typename... T> __device__ unsigned __ballot_sync(T...) { return 0; }
template <typename... T> __device__ int __any_sync(T...) { return 0; }
template <typename... T> __device__ int __all_sync(T...) { return 0; }
__device__ unsigned __activemask();
__device__ float2 make_float2(float, float); __device__ float4 make_float4(float, float, float, float);
__device__ int2 make_int2(int, int); __device__ int4 make_int4(int, int, int, int);
namespace cooperative_groups {
struct thread_block { __device__ void sync(); __device__ unsigned thread_rank(); };
struct grid_group { __device__ void sync(); };
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
template <typename G> __device__ void sync(G&);
}  // namespace cooperative_groups
typedef struct { unsigned short x; } __half;
typedef struct { unsigned short x; } __nv_bfloat16;
typedef int cudaError_t;
typedef int hipError_t;
typedef void* cudaStream_t;
typedef void* hipStream_t;
)";

// The headers a GPU source includes that the shim stands in for.
constexpr const char* kHeaders[] = {"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h",
                                    "cuda_fp16.h", "cuda_bf16.h", "cooperative_groups.h", "hip/hip_runtime.h",
                                    "hip/hip_fp16.h", "hip/hip_bf16.h", "hip/hip_cooperative_groups.h"};

}  // namespace

const std::filesystem::path& gpu_header_shim_dir() {
  static TempDir dir("rpl-gpu-headers-");
  static const bool written = [] {
    create_output_folder(dir.path() / "hip");
    write_output_file(dir.path() / "rpl_gpu_shim.h", kShim);
    for (const char* h : kHeaders) write_output_file(dir.path() / h, "#pragma once\n#include \"rpl_gpu_shim.h\"\n");
    return true;
  }();
  (void)written;
  return dir.path();
}

}  // namespace rpl::optimize
