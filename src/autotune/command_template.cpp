#include <rpl/autotune/command_template.hpp>

#include <algorithm>
#include <cctype>

#include <glib.h>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> shell_split(const std::string& text, const std::string& option) {
  gint argc = 0;
  gchar** argv = nullptr;
  GError* error = nullptr;
  if (!g_shell_parse_argv(text.c_str(), &argc, &argv, &error)) {
    std::string why = error ? error->message : "it does not split into arguments";
    if (error) g_error_free(error);
    fail(Errc::bad_input, "{} '{}': {}", option, text, why);
  }
  std::vector<std::string> words(argv, argv + argc);
  g_strfreev(argv);
  return words;
}

}  // namespace

CommandTemplate::CommandTemplate(const std::string& text, const std::string& option) : text_(text) {
  bool blank = std::all_of(text.begin(), text.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if (blank) fail(Errc::bad_input, "{} is empty: give the command to run", option);
  for (const std::string& word : shell_split(text, option)) {
    std::vector<Piece> pieces;
    auto literal = [&](const std::string& s) {
      if (pieces.empty() || pieces.back().placeholder) pieces.push_back({false, ""});
      pieces.back().text += s;
    };
    for (size_t i = 0; i < word.size();) {
      if (word.compare(i, 2, "{{") == 0 || word.compare(i, 2, "}}") == 0) {
        literal(std::string(1, word[i]));
        i += 2;
        continue;
      }
      if (word[i] == '{' && i + 1 < word.size() && name_start(word[i + 1])) {
        size_t end = i + 1;
        while (end < word.size() && name_char(word[end])) ++end;
        if (end < word.size() && word[end] == '}') {
          pieces.push_back({true, word.substr(i + 1, end - i - 1)});
          i = end + 1;
          continue;
        }
      }
      literal(std::string(1, word[i]));
      ++i;
    }
    if (pieces.empty()) pieces.push_back({false, ""});  // an empty argument ('') stays one
    words_.push_back(std::move(pieces));
  }
  if (words_.empty()) fail(Errc::bad_input, "{} is empty: give the command to run", option);
}

std::vector<std::string> CommandTemplate::placeholders() const {
  std::vector<std::string> names;
  for (const auto& word : words_) {
    for (const auto& piece : word) {
      if (piece.placeholder) names.push_back(piece.text);
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::vector<std::string> CommandTemplate::instantiate(const std::function<std::string(const std::string&)>& lookup) const {
  std::vector<std::string> argv;
  for (const auto& word : words_) {
    std::string arg;
    for (const auto& piece : word) arg += piece.placeholder ? lookup(piece.text) : piece.text;
    argv.push_back(std::move(arg));
  }
  return argv;
}

std::vector<std::string> CommandTemplate::literal_words() const {
  std::vector<std::string> out;
  for (const auto& word : words_) {
    if (std::none_of(word.begin(), word.end(), [](const Piece& p) { return p.placeholder; })) {
      out.push_back(word.empty() ? "" : word.front().text);
    }
  }
  return out;
}

}  // namespace rpl::autotune
