#pragma once
// Lines of text as programs print them, for one-line messages.
#include <cstddef>
#include <string>
#include <string_view>

namespace rpl {

/// s without the whitespace at either end.
std::string trimmed(std::string_view s);

/// The last line of text that is not blank, trimmed; one longer than max_chars is cut to end in
/// "..." (a program's last words are the clue to why it failed; a message stays one line).
std::string last_line(std::string_view text, size_t max_chars = 200);

/// "1 run", "3 runs"; "1 process", "2 processes": n and the noun in the number it takes (the plural
/// is the noun and "s" unless given).
std::string counted(size_t n, std::string_view noun, std::string_view plural = "");

}  // namespace rpl
