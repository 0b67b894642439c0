#pragma once
// Small helpers over libclang's C API that the source model and the parameter analysis share.
#include <clang-c/Index.h>

#include <string>
#include <vector>

#include <rpl/optimize/kernel_source.hpp>

namespace rpl::optimize::cursors {

inline std::string text_of(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

inline std::string spelling(CXCursor c) { return text_of(clang_getCursorSpelling(c)); }

/// The byte offset in its file where the cursor's own location (a declaration's name) is spelled.
inline size_t offset_of(CXCursor c) {
  unsigned offset = 0;
  clang_getSpellingLocation(clang_getCursorLocation(c), nullptr, nullptr, nullptr, &offset);
  return offset;
}

inline TextRange range_of(CXCursor c) {
  const CXSourceRange r = clang_getCursorExtent(c);
  unsigned begin = 0, end = 0;
  clang_getSpellingLocation(clang_getRangeStart(r), nullptr, nullptr, nullptr, &begin);
  clang_getSpellingLocation(clang_getRangeEnd(r), nullptr, nullptr, nullptr, &end);
  return {begin, end};
}

inline unsigned line_of(CXCursor c) {
  unsigned line = 0;
  clang_getSpellingLocation(clang_getCursorLocation(c), nullptr, &line, nullptr, nullptr);
  return line;
}

inline bool in_main_file(CXCursor c) { return clang_Location_isFromMainFile(clang_getCursorLocation(c)) != 0; }

template <typename F>
void visit_children(CXCursor c, F&& f) {
  clang_visitChildren(
      c, [](CXCursor child, CXCursor parent, CXClientData data) { return (*static_cast<F*>(data))(child, parent); }, &f);
}

inline std::vector<CXCursor> children_of(CXCursor c) {
  std::vector<CXCursor> out;
  visit_children(c, [&](CXCursor child, CXCursor) {
    out.push_back(child);
    return CXChildVisit_Continue;
  });
  return out;
}

/// A function definition's parameters, in order (ParmDecl children: templates have them too).
inline std::vector<CXCursor> parameters_of(CXCursor function) {
  std::vector<CXCursor> out;
  for (const auto& c : children_of(function)) {
    if (clang_getCursorKind(c) == CXCursor_ParmDecl) out.push_back(c);
  }
  return out;
}

}  // namespace rpl::optimize::cursors
