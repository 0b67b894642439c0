#include <rpl/core/log.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace rpl::log {
namespace {

bool g_debug = false;

// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
bool use_colour() {
  static const bool colour = isatty(STDERR_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr;
  return colour;
}

void emit(std::string_view label, std::string_view colour, std::string_view message) {
  if (use_colour()) {
    fmt::print(stderr, "\033[{}m{}\033[0m {}\n", colour, label, message);
  } else {
    fmt::print(stderr, "{} {}\n", label, message);
  }
}

}  // namespace

void set_debug(bool enabled) { g_debug = enabled; }
bool debug_enabled() { return g_debug; }
void warning(std::string_view message) { emit("warning:", "33", message); }
void info(std::string_view message) { fmt::print(stderr, "{}\n", message); }
void debug(std::string_view message) {
  if (g_debug) emit("debug:", "36", message);
}

}  // namespace rpl::log
