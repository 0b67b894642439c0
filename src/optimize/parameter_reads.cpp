#include "parameter_reads.hpp"

#include <optional>

#include "libclang_cursors.hpp"

namespace rpl::optimize {
using namespace cursors;
namespace {

bool is_null(CXCursor c) { return clang_Cursor_isNull(c) != 0; }

bool same_declaration(CXCursor a, CXCursor b) {
  return clang_equalCursors(clang_getCanonicalCursor(a), clang_getCanonicalCursor(b)) != 0;
}

bool same_extent(CXCursor a, CXCursor b) {
  const TextRange x = range_of(a), y = range_of(b);
  return x.begin == y.begin && x.end == y.end;
}

// The expression under its implicit conversions and parentheses.
CXCursor stripped(CXCursor e) {
  for (;;) {
    const auto kind = clang_getCursorKind(e);
    if (kind != CXCursor_UnexposedExpr && kind != CXCursor_ParenExpr) return e;
    const auto inner = children_of(e);
    if (inner.size() != 1) return e;
    e = inner[0];
  }
}

// The value of a condition that is a constant; none when it is not one (or depends on a template).
std::optional<bool> constant_condition(CXCursor e) {
  CXEvalResult r = clang_Cursor_Evaluate(e);
  if (!r) return std::nullopt;
  std::optional<bool> out;
  if (clang_EvalResult_getKind(r) == CXEval_Int) out = clang_EvalResult_getAsLongLong(r) != 0;
  clang_EvalResult_dispose(r);
  return out;
}

bool has_body(CXCursor f) {
  for (const auto& c : children_of(f)) {
    if (clang_getCursorKind(c) == CXCursor_CompoundStmt) return true;
  }
  return false;
}

// The definition, in the file being parsed, of the function a call calls (the template for a
// call of a template's specialisation); a null cursor when there is none to look into.
CXCursor callee_definition(CXCursor call) {
  CXCursor f = clang_getCursorReferenced(call);
  if (is_null(f)) return f;
  const CXCursor pattern = clang_getSpecializedCursorTemplate(f);
  if (!is_null(pattern)) f = pattern;
  f = clang_getCursorDefinition(f);
  const auto kind = clang_getCursorKind(f);
  if (is_null(f) || (kind != CXCursor_FunctionDecl && kind != CXCursor_FunctionTemplate) || !in_main_file(f) || !has_body(f)) {
    return clang_getNullCursor();
  }
  return f;
}

}  // namespace

struct ParameterReads::Walk {
  ParameterReads& self;
  std::vector<CXCursor> parameters;
  std::vector<bool> read, overwritten;

  Walk(ParameterReads& s, CXCursor f) : self(s), parameters(parameters_of(f)) {
    read.assign(parameters.size(), false);
    overwritten.assign(parameters.size(), false);
  }

  // The parameter a DeclRefExpr names, or -1.
  int parameter_named(CXCursor reference) const {
    if (clang_getCursorKind(reference) != CXCursor_DeclRefExpr) return -1;
    const CXCursor d = clang_getCursorReferenced(reference);
    if (is_null(d)) return -1;
    for (size_t i = 0; i < parameters.size(); ++i) {
      if (same_declaration(d, parameters[i])) return static_cast<int>(i);
    }
    return -1;
  }

  void note(int i) {
    if (i >= 0 && !overwritten[static_cast<size_t>(i)]) read[static_cast<size_t>(i)] = true;
  }

  // "p = ...": the parameter p is written, not read. The left side is the first token.
  int assigned_parameter(CXCursor binary) const {
    const auto parts = children_of(binary);
    if (parts.size() != 2) return -1;
    const int i = parameter_named(stripped(parts[0]));
    if (i < 0) return -1;
    CXToken* tokens = nullptr;
    unsigned count = 0;
    clang_tokenize(self.tu_, clang_getCursorExtent(binary), &tokens, &count);
    const bool plain = count > 1 && text_of(clang_getTokenSpelling(self.tu_, tokens[1])) == "=";
    clang_disposeTokens(self.tu_, tokens, count);
    return plain ? i : -1;
  }

  void walk(CXCursor c) {
    switch (clang_getCursorKind(c)) {
      case CXCursor_DeclRefExpr: note(parameter_named(c)); return;
      case CXCursor_UnaryExpr: return;  // sizeof, alignof: not evaluated
      case CXCursor_IfStmt:
      case CXCursor_ConditionalOperator:
        if (constant_branch(c)) return;
        break;
      case CXCursor_CallExpr: call(c); return;
      case CXCursor_CStyleCastExpr:
      case CXCursor_CXXStaticCastExpr:
      case CXCursor_CXXFunctionalCastExpr:
        if (clang_getCursorType(c).kind == CXType_Void) return;  // (void)p
        break;
      case CXCursor_BinaryOperator:
        if (assigned_parameter(c) >= 0) {
          walk(children_of(c)[1]);
          return;
        }
        break;
      case CXCursor_CompoundStmt:
        for (const auto& s : children_of(c)) statement(s);
        return;
      default: break;
    }
    for (const auto& k : children_of(c)) walk(k);
  }

  // A statement of its own: a parameter alone there ("p;") is not read.
  void statement(CXCursor s) {
    if (parameter_named(stripped(s)) >= 0) return;
    walk(s);
  }

  // if (0) / c ? a : b with a constant condition: only the branch taken. False when the condition
  // is not a constant or the statement has more parts (an init-statement, a declaration).
  bool constant_branch(CXCursor c) {
    const auto parts = children_of(c);
    if (parts.size() < 2 || parts.size() > 3) return false;
    const auto taken = constant_condition(parts[0]);
    if (!taken) return false;
    walk(parts[0]);
    if (*taken) {
      walk(parts[1]);
    } else if (parts.size() == 3) {
      walk(parts[2]);
    }
    return true;
  }

  // A parameter passed straight to a function of the file is read when that function reads it.
  void call(CXCursor c) {
    const CXCursor callee = callee_definition(c);
    const std::vector<bool> callee_reads = is_null(callee) ? std::vector<bool>{} : self.of(callee);
    const int n = clang_Cursor_getNumArguments(c);
    for (const auto& part : children_of(c)) {
      int argument = -1;
      for (int i = 0; i < n && argument < 0; ++i) {
        if (same_extent(part, clang_Cursor_getArgument(c, static_cast<unsigned>(i)))) argument = i;
      }
      const int passed = parameter_named(stripped(part));
      if (argument >= 0 && static_cast<size_t>(argument) < callee_reads.size() && passed >= 0) {
        if (callee_reads[static_cast<size_t>(argument)]) note(passed);
        continue;
      }
      walk(part);
    }
  }
};

std::vector<bool> ParameterReads::of(CXCursor f) {
  const std::string usr = text_of(clang_getCursorUSR(f));
  if (const auto it = known_.find(usr); it != known_.end()) return it->second;
  if (in_progress_.count(usr)) return std::vector<bool>(parameters_of(f).size(), true);  // recursion: assume read
  in_progress_.insert(usr);
  auto reads = analyze(f);
  in_progress_.erase(usr);
  known_[usr] = reads;
  return reads;
}

std::vector<bool> ParameterReads::analyze(CXCursor f) {
  Walk w(*this, f);
  for (const auto& part : children_of(f)) {
    if (clang_getCursorKind(part) != CXCursor_CompoundStmt) continue;
    // The body's own statements in order: "p = 1024;" before any read of p leaves p unread.
    for (const auto& s : children_of(part)) {
      const CXCursor e = stripped(s);
      const int assigned = clang_getCursorKind(e) == CXCursor_BinaryOperator ? w.assigned_parameter(e) : -1;
      w.statement(s);
      if (assigned >= 0 && !w.read[static_cast<size_t>(assigned)]) w.overwritten[static_cast<size_t>(assigned)] = true;
    }
  }
  return w.read;
}

}  // namespace rpl::optimize
