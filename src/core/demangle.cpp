#include <rpl/core/demangle.hpp>

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace rpl {

std::string demangle(const std::string& mangled) {
  // The ABI demangles type encodings too ("f" is float): a symbol's mangled name starts with _Z.
  if (!mangled.starts_with("_Z")) return mangled;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  return (status == 0 && out) ? std::string(out.get()) : mangled;
}

}  // namespace rpl
