#include <rpl/optimize/kernel_source.hpp>

#include <clang-c/Index.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string_view>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "gpu_header_shim.hpp"
#include "libclang_cursors.hpp"
#include "parameter_reads.hpp"

namespace rpl::optimize {
namespace fs = std::filesystem;
using namespace cursors;
namespace {

// The CUDA attributes of a declaration (attribute cursors come from the stand-in header's macros,
// so they are looked for without the main-file filter).
struct CudaAttributes {
  bool global = false, device = false, host = false, shared = false;
};

CudaAttributes attributes_of(CXCursor c) {
  CudaAttributes a;
  visit_children(c, [&](CXCursor child, CXCursor) {
    switch (clang_getCursorKind(child)) {
      case CXCursor_CUDAGlobalAttr: a.global = true; break;
      case CXCursor_CUDADeviceAttr: a.device = true; break;
      case CXCursor_CUDAHostAttr: a.host = true; break;
      case CXCursor_CUDASharedAttr: a.shared = true; break;
      default: break;
    }
    return CXChildVisit_Continue;
  });
  return a;
}

bool is_loop(CXCursorKind k) {
  return k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt;
}

// Names whose call inside a loop makes unrolling it unsafe to do blindly.
bool is_barrier(std::string_view name, std::string_view before) {
  if (name.rfind("__syncthreads", 0) == 0 || name == "__syncwarp" || name == "__builtin_amdgcn_s_barrier" ||
      name == "__barrier_sync" || name == "__builtin_amdgcn_s_barrier_signal") {
    return true;
  }
  // Cooperative groups: block.sync(), grid.sync(), cg::sync(group), cg::this_grid().sync().
  return name == "sync" && (before == "." || before == "::" || before == "->");
}

bool is_atomic(std::string_view name) {
  return name.rfind("atomic", 0) == 0 || name.rfind("__atomic", 0) == 0 || name.rfind("__hip_atomic", 0) == 0 ||
         name.find("atomic_ref") != std::string_view::npos || name.rfind("unsafeAtomic", 0) == 0 ||
         name.rfind("safeAtomic", 0) == 0;
}

class Parser {
 public:
  Parser(const fs::path& path, const std::string& text) {
    out_.path = path;
    out_.text = text;
  }

  KernelSource parse() {
    const std::string file = out_.path.string();
    const std::string shim = "-I" + gpu_header_shim_dir().string();
    // nvcc and hipcc include their runtime header in every file without being asked; so does this.
    const std::string runtime = "-include" + (gpu_header_shim_dir() / "rpl_gpu_shim.h").string();
    const std::string here = "-I" + (out_.path.has_parent_path() ? out_.path.parent_path() : fs::path(".")).string();
    const bool hip = out_.path.extension() == ".hip" || out_.text.find("hip/hip_runtime.h") != std::string::npos;
    std::vector<const char*> args = {"-x",         "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
                                     "--cuda-path=/nonexistent", "-std=c++17", "-ferror-limit=0", "-w",
                                     shim.c_str(), here.c_str(), runtime.c_str()};
    if (hip) args.insert(args.end(), {"-D__HIPCC__", "-D__HIP__", "-D__HIP_PLATFORM_AMD__"});
    CXUnsavedFile unsaved{file.c_str(), out_.text.data(), static_cast<unsigned long>(out_.text.size())};
    std::unique_ptr<void, void (*)(CXIndex)> index(clang_createIndex(0, 0), clang_disposeIndex);
    CXTranslationUnit tu = nullptr;
    const auto status = clang_parseTranslationUnit2(index.get(), file.c_str(), args.data(), static_cast<int>(args.size()),
                                                    &unsaved, 1, CXTranslationUnit_KeepGoing, &tu);
    if (status != CXError_Success || !tu) fail(Errc::bad_input, "{}: libclang cannot parse it (error {})", file, static_cast<int>(status));
    std::unique_ptr<CXTranslationUnitImpl, void (*)(CXTranslationUnit)> owned(tu, clang_disposeTranslationUnit);
    tu_ = tu;
    reads_.emplace(tu);
    read_top_level(clang_getTranslationUnitCursor(tu));
    return std::move(out_);
  }

 private:
  std::string_view slice(TextRange r) const {
    if (r.begin > r.end || r.end > out_.text.size()) return {};
    return std::string_view(out_.text).substr(r.begin, r.end - r.begin);
  }

  void read_top_level(CXCursor root) {
    // Dynamic shared memory (extern __shared__, HIP_DYNAMIC_SHARED) declared at file scope.
    visit_children(root, [&](CXCursor c, CXCursor) {
      if (!in_main_file(c)) return CXChildVisit_Continue;
      const auto kind = clang_getCursorKind(c);
      if (kind == CXCursor_VarDecl) note_dynamic_shared(c);
      if (kind == CXCursor_Namespace || kind == CXCursor_UnexposedDecl || kind == CXCursor_LinkageSpec) return CXChildVisit_Recurse;
      if ((kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate) && clang_isCursorDefinition(c)) {
        read_function(c);
      } else {
        out_.others.push_back({text_of(clang_getCursorKindSpelling(kind)) + " " + text_of(clang_getCursorSpelling(c)), range_of(c)});
      }
      return CXChildVisit_Continue;
    });
  }

  void note_dynamic_shared(CXCursor var) {
    if (clang_Cursor_getStorageClass(var) == CX_SC_Extern && attributes_of(var).shared) {
      dynamic_shared_.insert(text_of(clang_getCursorUSR(var)));
    }
  }

  void read_function(CXCursor f) {
    const auto attrs = attributes_of(f);
    const std::string name = text_of(clang_getCursorSpelling(f));
    if (!attrs.global) {
      out_.functions.push_back({name, attrs.device && !attrs.host, range_of(f)});
      return;
    }
    KernelDefinition k;
    k.name = name;
    k.line = line_of(f);
    k.definition = range_of(f);
    k.name_offset = offset_of(f);
    if (clang_getCursorKind(f) == CXCursor_FunctionDecl) k.mangled_name = text_of(clang_Cursor_getMangling(f));
    const auto reads = reads_->of(f);
    for (const auto& p : parameters_of(f)) {
      const CXType type = clang_getCursorType(p);
      KernelParameter param;
      param.name = spelling(p);
      param.pointer = clang_getCanonicalType(type).kind == CXType_Pointer;
      param.restrict_qualified = clang_isRestrictQualifiedType(type) != 0;
      if (!param.name.empty() && slice({offset_of(p), offset_of(p) + param.name.size()}) == param.name) param.name_offset = offset_of(p);
      param.read = reads.at(k.parameters.size());
      k.parameter_types.push_back(unqualified(type));
      k.parameters.push_back(std::move(param));
    }
    k.launch_bounds = launch_bounds_before(k.definition.begin, k.name_offset);
    k.template_parameters = template_header(k.definition);
    // Dynamic shared memory declared inside the kernel, then its loops.
    visit_children(f, [&](CXCursor c, CXCursor) {
      if (clang_getCursorKind(c) == CXCursor_VarDecl) note_dynamic_shared(c);
      return CXChildVisit_Recurse;
    });
    collect_loops(f, 0, k.loops);
    out_.kernels.push_back(std::move(k));
  }

  // A parameter's type without its top-level const, volatile and restrict, which the function's
  // type (and so its signature and mangled name) does not keep: "const float *__restrict" ->
  // "const float *", "const int" -> "int".
  static std::string unqualified(CXType type) {
    std::string t = text_of(clang_getTypeSpelling(type));
    const bool pointer = clang_getCanonicalType(type).kind == CXType_Pointer;
    for (bool changed = true; changed;) {
      changed = false;
      for (const std::string q : {"const", "volatile", "__restrict", "restrict"}) {
        if (pointer && t.size() > q.size() && t.compare(t.size() - q.size(), q.size(), q) == 0 &&
            (t[t.size() - q.size() - 1] == ' ' || t[t.size() - q.size() - 1] == '*')) {
          t.resize(t.size() - q.size());
          while (!t.empty() && t.back() == ' ') t.pop_back();
          changed = true;
        } else if (!pointer && t.rfind(q + " ", 0) == 0) {
          t.erase(0, q.size() + 1);
          changed = true;
        }
      }
    }
    return t;
  }

  // The launch-bounds attribute between a kernel definition's first token and its name, as written.
  std::string launch_bounds_before(size_t begin, size_t name) const {
    const std::string_view head = slice({begin, name});
    for (const char* spelling : {"__launch_bounds__", "launch_bounds", "amdgpu_flat_work_group_size", "amdgpu_waves_per_eu"}) {
      const size_t at = head.find(spelling);
      if (at == std::string_view::npos) continue;
      const size_t open = head.find('(', at);
      int depth = 0;
      for (size_t i = open; open != std::string_view::npos && i < head.size(); ++i) {
        if (head[i] == '(') ++depth;
        if (head[i] == ')' && --depth == 0) return std::string(head.substr(at, i + 1 - at));
      }
      return std::string(head.substr(at));
    }
    return "";
  }

  // "template <int BM, typename T>" as written, from the definition's first token to the '>'
  // closing its parameter list.
  std::string template_header(TextRange def) const {
    const std::string_view t = slice(def);
    if (t.rfind("template", 0) != 0) return "";
    int depth = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '<') ++depth;
      if (t[i] == '>' && --depth == 0) return std::string(t.substr(0, i + 1));
    }
    return "";
  }

  void collect_loops(CXCursor parent, int depth, std::vector<LoopInfo>& loops) {
    visit_children(parent, [&](CXCursor c, CXCursor) {
      const auto kind = clang_getCursorKind(c);
      if (!is_loop(kind)) return CXChildVisit_Recurse;
      if (kind == CXCursor_ForStmt) {
        LoopInfo loop;
        loop.line = line_of(c);
        loop.statement = range_of(c);
        loop.depth = depth;
        loop.unroll_pragma = pragma_before(loop.statement.begin);
        loop.refusal = refusal_of(c);
        loops.push_back(std::move(loop));
      }
      collect_loops(c, depth + 1, loops);
      return CXChildVisit_Continue;
    });
  }

  // An existing "#pragma unroll" on the line just before the loop: the whole line, newline included.
  std::optional<TextRange> pragma_before(size_t loop_begin) const {
    const std::string& t = out_.text;
    const size_t line_start = t.rfind('\n', loop_begin == 0 ? 0 : loop_begin - 1);
    if (line_start == std::string::npos || line_start == 0) return std::nullopt;
    const size_t prev_start = t.rfind('\n', line_start - 1);
    const size_t b = prev_start == std::string::npos ? 0 : prev_start + 1;
    std::string_view prev(t.data() + b, line_start - b);
    const size_t first = prev.find_first_not_of(" \t");
    if (first == std::string_view::npos) return std::nullopt;
    prev.remove_prefix(first);
    if (prev.rfind("#pragma", 0) != 0) return std::nullopt;
    std::string_view rest = prev.substr(7);
    rest.remove_prefix(std::min(rest.size(), rest.find_first_not_of(" \t")));
    if (rest.rfind("unroll", 0) != 0 && rest.rfind("nounroll", 0) != 0) return std::nullopt;
    return TextRange{b, line_start + 1};
  }

  // Why a loop must not be unrolled blindly, or "" when it may be. Barriers and atomics are found by
  // the names the loop calls (they may come from headers this parse does not have), break, return
  // and goto by the AST.
  std::string refusal_of(CXCursor loop) {
    std::string why;
    auto refuse = [&](std::string reason) {
      if (why.empty()) why = std::move(reason);
    };
    CXToken* tokens = nullptr;
    unsigned count = 0;
    clang_tokenize(tu_, clang_getCursorExtent(loop), &tokens, &count);
    std::string before;  // the previous token's spelling
    for (unsigned i = 0; i < count; ++i) {
      std::string name = text_of(clang_getTokenSpelling(tu_, tokens[i]));
      if (clang_getTokenKind(tokens[i]) == CXToken_Identifier) {
        if (is_barrier(name, before)) refuse("a barrier (" + name + ") in its body");
        if (is_atomic(name)) refuse("an atomic (" + name + ") in its body");
      }
      before = std::move(name);
    }
    clang_disposeTokens(tu_, tokens, count);
    visit_children(loop, [&](CXCursor c, CXCursor) {
      switch (clang_getCursorKind(c)) {
        case CXCursor_ReturnStmt: refuse("a return in its body"); break;
        case CXCursor_GotoStmt:
        case CXCursor_IndirectGotoStmt: refuse("a goto in its body"); break;
        case CXCursor_DeclRefExpr:
          if (dynamic_shared_.count(text_of(clang_getCursorUSR(clang_getCursorReferenced(c))))) {
            refuse("an access to dynamic shared memory (" + text_of(clang_getCursorSpelling(c)) + ") in its body");
          }
          break;
        default: break;
      }
      return CXChildVisit_Recurse;
    });
    if (breaks_out(loop)) refuse("a break out of it");
    return why;
  }

  // A break that leaves this loop: one not inside a nested loop or switch.
  static bool breaks_out(CXCursor loop) {
    bool found = false;
    visit_children(loop, [&](CXCursor c, CXCursor) {
      const auto kind = clang_getCursorKind(c);
      if (kind == CXCursor_BreakStmt) found = true;
      if (is_loop(kind) || kind == CXCursor_SwitchStmt) return CXChildVisit_Continue;  // its breaks are its own
      return found ? CXChildVisit_Break : CXChildVisit_Recurse;
    });
    return found;
  }

  KernelSource out_;
  CXTranslationUnit tu_ = nullptr;
  std::optional<ParameterReads> reads_;  // one for the file: a helper is analysed once for every kernel calling it
  std::set<std::string> dynamic_shared_;  // USRs of extern __shared__ variables
};

}  // namespace

const KernelDefinition* KernelSource::find(const std::string& name) const {
  for (const auto& k : kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

KernelSource parse_kernel_source(const fs::path& path, const std::string& text) { return Parser(path, text).parse(); }

KernelSource parse_kernel_file(const fs::path& path) {
  return parse_kernel_source(fs::absolute(path).lexically_normal(), read_file(path, std::uintmax_t{64} << 20));
}

}  // namespace rpl::optimize
