// libFuzzer target: the AMD code-object reader (HSACO ELF notes, clang offload bundles,
// .hip_fatbin in host binaries) on arbitrary bytes. Only rpl::Error may come out.
#include <rpl/codeobj/amd_code_object.hpp>
#include <rpl/core/error.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    rpl::codeobj::read_amd_code_objects(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const rpl::Error&) {
  }
  return 0;
}
