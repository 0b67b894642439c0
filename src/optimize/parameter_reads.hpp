#pragma once
// Which parameters a function's body reads, from libclang's AST: a candidate kernel that no longer
// reads a parameter the original reads (the row length replaced by the captured value) is
// specialised to one input shape. Counted as no read: a reference in a branch whose condition is a
// constant that rules it out, in an unevaluated operand (sizeof), in an expression cast to void or
// left alone as a statement, a plain assignment's left side, and any reference after the body
// first assigns the parameter as a statement of its own. A parameter passed to a function defined
// in the file is read when that function reads its own parameter there.
#include <clang-c/Index.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace rpl::optimize {

class ParameterReads {
 public:
  explicit ParameterReads(CXTranslationUnit tu) : tu_(tu) {}

  /// For each parameter of the function definition f (a FunctionDecl or FunctionTemplate), whether
  /// its incoming value is read.
  std::vector<bool> of(CXCursor f);

 private:
  struct Walk;
  std::vector<bool> analyze(CXCursor f);

  CXTranslationUnit tu_;
  std::map<std::string, std::vector<bool>> known_;  // by the function's USR
  std::set<std::string> in_progress_;              // recursion: assumed read
};

}  // namespace rpl::optimize
