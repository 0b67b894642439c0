#pragma once
// Arithmetic and comparison expressions over named numbers (muParser): constraints such as
// "BM * BN <= 16384" or "THREADS % 32 == 0", and derived features. Each expression is compiled
// once and evaluated for every configuration.
#include <memory>
#include <string>
#include <vector>

namespace rpl::autotune {

class Expression {
 public:
  /// Compiles text over the variables (their addresses stay bound: change the values, evaluate
  /// again). Error(bad_input) "<what> '<text>': <why>" when it does not compile or assigns.
  Expression(const std::string& text, const std::vector<std::pair<std::string, double*>>& variables,
             const std::string& what);
  ~Expression();
  Expression(Expression&&) noexcept;
  double evaluate() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rpl::autotune
