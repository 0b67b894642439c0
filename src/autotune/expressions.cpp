#include "expressions.hpp"

#include <cmath>
#include <regex>

#include <muParser.h>

#include <rpl/core/error.hpp>

namespace rpl::autotune {
namespace {

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
  static const std::regex lone_equals(R"((^|[^=<>!])=($|[^=]))");
  if (std::regex_search(text, lone_equals)) fail(Errc::bad_input, "{} '{}': '=' assigns; compare with '=='", what, text);
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
