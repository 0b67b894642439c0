#pragma once
#include <string>

namespace rpl {

/// "_Z5smallPfi" -> "small(float*, int)"; the input itself when it is not a mangled C++ name.
std::string demangle(const std::string& mangled);

}  // namespace rpl
