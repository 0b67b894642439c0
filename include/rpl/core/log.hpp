#pragma once
// Warnings and progress go to stderr; stdout is kept for the requested output.
#include <string_view>

#include <fmt/format.h>

namespace rpl::log {

void set_debug(bool enabled);
bool debug_enabled();
void warning(std::string_view message);
void info(std::string_view message);
void debug(std::string_view message);

}  // namespace rpl::log
