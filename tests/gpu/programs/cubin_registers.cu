// cubin_registers CUBIN: loads a cubin with the driver API and prints, for every kernel in it,
// "MANGLED_NAME REGISTERS" from cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS): the ground truth
// that inspect's reading of the ELF is held to (the driver refuses a cubin for another GPU).
#include <cuda.h>

#include <cstdio>
#include <vector>

#define CU_CHECK(call)                                                              \
  do {                                                                              \
    CUresult status_ = (call);                                                      \
    if (status_ != CUDA_SUCCESS) {                                                  \
      const char* text_ = nullptr;                                                  \
      cuGetErrorString(status_, &text_);                                            \
      std::fprintf(stderr, "%s failed: %s\n", #call, text_ ? text_ : "unknown");   \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cubin_registers CUBIN\n");
    return 2;
  }
  CUdevice device;
  CUcontext context;
  CUmodule module;
  CU_CHECK(cuInit(0));
  CU_CHECK(cuDeviceGet(&device, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CU_CHECK(cuCtxSetCurrent(context));
  CU_CHECK(cuModuleLoad(&module, argv[1]));
  unsigned int count = 0;
  CU_CHECK(cuModuleGetFunctionCount(&count, module));
  std::vector<CUfunction> functions(count);
  CU_CHECK(cuModuleEnumerateFunctions(functions.data(), count, module));
  for (CUfunction f : functions) {
    const char* name = nullptr;
    int registers = 0;
    CU_CHECK(cuFuncGetName(&name, f));
    CU_CHECK(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    std::printf("%s %d\n", name, registers);
  }
  return 0;
}
