#pragma once
// The one error type of rocm-perf. Library code throws rpl::Error; the CLI catches it once and maps
// its code to the documented exit code (DESIGN.md "Exit codes").
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace rpl {

enum class Errc {
  run_failed = 1,    // the profiled program or a measurement failed
  bad_input = 2,     // bad usage or bad input: unreadable/malformed file, unknown arch, bad option
  missing_tool = 3,  // a tool or hardware is missing (no rocprofv3, no GPU)
  internal = 4,      // a bug in rocm-perf
};

/// Exit code of the process for an error code.
constexpr int exit_code(Errc code) { return static_cast<int>(code); }

class Error : public std::runtime_error {
 public:
  Error(Errc code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  Errc code() const { return code_; }

 private:
  Errc code_;
};

/// Throws an Error whose message is formatted with fmt.
template <typename... Args>
[[noreturn]] void fail(Errc code, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace rpl
