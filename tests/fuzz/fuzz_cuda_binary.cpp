// libFuzzer target: the CUDA fatbin/cubin reader on arbitrary bytes. A malformed input must end
// in rpl::Error (bad_input); anything else (a crash, a sanitizer report, another exception) is a
// finding.
#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/error.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    rpl::codeobj::read_cuda_kernels(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", {}, 1);
  } catch (const rpl::Error&) {
  }
  return 0;
}
