#pragma once
// A CUDA or HIP source file as the optimizer sees it, parsed with Clang's own AST (libclang): its
// kernel definitions with their signatures and byte ranges, and each kernel's for loops with
// whether unrolling them is safe. Parsed for the device without the toolkit's headers: a small
// stand-in for cuda_runtime.h / hip_runtime.h declares what kernels use, so the host code's
// errors (unknown runtime calls) do not matter; only the kernels' structure is read.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rpl::optimize {

/// Bytes [begin, end) of the source text.
struct TextRange {
  size_t begin = 0, end = 0;
};

struct LoopInfo {
  unsigned line = 0;
  TextRange statement;                  // the for statement, from "for" to its end
  std::optional<TextRange> unroll_pragma;  // an existing "#pragma unroll ..." line just before it
  int depth = 0;                        // 0 for a loop directly in the kernel's body
  std::string refusal;                  // why unrolling it is unsafe; empty when it is safe
};

struct KernelParameter {
  std::string name;                     // empty when the parameter is unnamed
  bool pointer = false;
  bool restrict_qualified = false;
  size_t name_offset = 0;               // where its name is spelled in the text; 0 when unnamed
  bool read = false;                    // the kernel reads its value (parameter_reads.hpp)
};

struct KernelDefinition {
  std::string name;                     // "softmax_naive"
  std::string mangled_name;             // "_Z13softmax_naivePKfPfii" (templates: as declared, not instantiated)
  std::vector<std::string> parameter_types;  // without top-level qualifiers, which the signature ignores
  std::vector<KernelParameter> parameters;
  size_t name_offset = 0;               // where the kernel's name is spelled in the definition
  std::string launch_bounds;            // the launch-bounds attribute written before the name, if any
  std::string template_parameters;      // "template <int BM, int BN>" as written; empty when not a template
  unsigned line = 0;
  TextRange definition;                 // from its first token (template or attribute) to the closing brace
  std::vector<LoopInfo> loops;          // in source order
};

/// Any other top-level function defined in the file.
struct FunctionDefinition {
  std::string name;
  bool device_only = false;             // __device__ without __host__ or __global__
  TextRange definition;
};

/// A top-level declaration that is no function definition (a variable, a type, a declaration).
struct OtherDeclaration {
  std::string description;              // "VarDecl dyn"
  TextRange range;
};

struct KernelSource {
  std::filesystem::path path;
  std::string text;
  std::vector<KernelDefinition> kernels;
  std::vector<FunctionDefinition> functions;
  std::vector<OtherDeclaration> others;

  const KernelDefinition* find(const std::string& name) const;
};

/// Parses text as the contents of path (its folder resolves relative #includes). Error(bad_input)
/// when libclang cannot parse it at all.
KernelSource parse_kernel_source(const std::filesystem::path& path, const std::string& text);

/// Reads and parses path.
KernelSource parse_kernel_file(const std::filesystem::path& path);

}  // namespace rpl::optimize
