#pragma once
// A command template such as "./matmul --bm {BM} --bn {BN}": split into arguments as a POSIX shell
// would split it (quotes, backslashes; GLib's g_shell_parse_argv), then {NAME} replaced inside each
// argument. Nothing is ever run through a shell, so a value cannot inject a command. "{{" and "}}"
// are literal braces; a brace that does not open {NAME} is literal too.
#include <functional>
#include <string>
#include <vector>

namespace rpl::autotune {

class CommandTemplate {
 public:
  CommandTemplate() = default;
  /// Error(bad_input) naming option when the text does not split (an unclosed quote) or is empty.
  CommandTemplate(const std::string& text, const std::string& option);
  const std::string& text() const { return text_; }
  bool empty() const { return words_.empty(); }
  /// The names of its placeholders, sorted, each once.
  std::vector<std::string> placeholders() const;
  /// The argv with each {NAME} replaced by lookup(NAME).
  std::vector<std::string> instantiate(const std::function<std::string(const std::string&)>& lookup) const;
  /// The words that hold no placeholder (files among them are hashed into cache keys).
  std::vector<std::string> literal_words() const;

 private:
  struct Piece {
    bool placeholder = false;
    std::string text;  // the literal text, or the placeholder's name
  };
  std::string text_;
  std::vector<std::vector<Piece>> words_;
};

}  // namespace rpl::autotune
