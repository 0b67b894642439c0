#include "expressions.hpp"

#include <cmath>

#include <muParser.h>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

// An "=" that is not part of "==", "<=", ">=" or "!=" (by hand: std::regex recurses per character
// and overflows the stack on long text).
bool has_lone_equals(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char before = i > 0 ? text[i - 1] : '\0', after = i + 1 < text.size() ? text[i + 1] : '\0';
    if (text[i] == '=' && after != '=' && before != '=' && before != '<' && before != '>' && before != '!') return true;
  }
  return false;
}

double modulo(double a, double b) { return std::fmod(a, b); }

}  // namespace

struct Expression::Impl {
  mu::Parser parser;
  std::string text;
  std::string what;
};

Expression::Expression(const std::string& text, const std::vector<std::pair<std::string, double*>>& variables,
                       const std::string& what)
    : impl_(std::make_unique<Impl>()) {
  impl_->text = text;
  impl_->what = what;
  // muParser's "=" assigns; in a constraint it would be a silent mistake for "==".
  if (has_lone_equals(text)) fail(Errc::bad_input, "{} '{}': '=' assigns; compare with '=='", what, text);
  try {
    impl_->parser.DefineOprt("%", modulo, mu::prMUL_DIV, mu::oaLEFT);
    for (const auto& [name, address] : variables) impl_->parser.DefineVar(name, address);
    impl_->parser.SetExpr(text);
    impl_->parser.Eval();  // compiles now, so that a bad expression fails before anything runs
  } catch (const mu::Parser::exception_type& e) {
    fail(Errc::bad_input, "{} '{}': {}", what, text, e.GetMsg());
  }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;

double Expression::evaluate() const {
  try {
    return impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    fail(Errc::bad_input, "{} '{}': {}", impl_->what, impl_->text, e.GetMsg());
  }
}

}  // namespace rpl::autotune
