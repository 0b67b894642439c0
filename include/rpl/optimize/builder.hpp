#pragma once
// Builds variants of a source file with the user's build command: each variant is written into a
// folder of the optimizer's own (the user's files are never written), its relative #includes made
// to resolve as they did beside the original, and built with {SOURCE} and {BINARY} replaced. With
// {SOURCE_DIR}, that folder also holds a copy of each source and header beside the original, so
// that the other files of a program (the .cu files that include a header being optimized) build
// against the variant.
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rpl/autotune/command_template.hpp>

namespace rpl::optimize {

struct BuiltVariant {
  std::filesystem::path source, binary;
  bool ok = false;
  std::string failure;  // why not: "the build exited with status 1", "the build timed out after 600 s", ...
  std::string log;      // the build's output (its last 64 KiB), for a model to repair from
  double seconds = 0;
};

class VariantBuilder {
 public:
  /// build_template: the user's --build with {SOURCE} or {SOURCE_DIR}, and {BINARY}. Error(bad_input)
  /// when they are missing, another placeholder is used, or the text does not split into arguments.
  VariantBuilder(const std::string& build_template, std::filesystem::path original_source, double timeout_seconds);

  /// Writes text into dir (created) under the original's file name (with {SOURCE_DIR}, beside copies
  /// of the original's folder's sources) and builds it into dir/variant.
  BuiltVariant build(const std::string& text, const std::filesystem::path& dir) const;
  /// Builds each (text, dir) at once, at most jobs at a time (0: one per core); results in order.
  std::vector<BuiltVariant> build_all(const std::vector<std::pair<std::string, std::filesystem::path>>& variants,
                                      unsigned jobs) const;

 private:
  autotune::CommandTemplate template_;
  std::filesystem::path original_;
  double timeout_seconds_;
  std::vector<std::string> folder_files_;  // with {SOURCE_DIR}: the sources beside the original, sorted
};

/// text with each `#include "x"` that names a file in original_dir rewritten to that file's
/// absolute path, so that the text resolves its includes from any folder as it did there; but for
/// the names in copied (sorted), files of original_dir copied beside the text, which stay as written.
std::string anchor_relative_includes(const std::string& text, const std::filesystem::path& original_dir,
                                     const std::vector<std::string>& copied = {});

/// Whether two binaries hold the same machine code: the same device images (cubins, AMD code
/// objects), or for files with none, the same bytes. When not, difference says where they differ.
bool same_machine_code(const std::filesystem::path& a, const std::filesystem::path& b, std::string& difference);

/// The device image in binary for arch ("sm_90", "gfx942"; an image for a variant of it such as
/// "sm_90a" or "gfx942:xnack-" counts) that defines the function mangled_name; none when the
/// binary holds no such image (built for another architecture, or as PTX alone).
std::optional<std::string> kernel_code_object(const std::filesystem::path& binary, const std::string& arch,
                                              const std::string& mangled_name);

/// The macros in text that make two builds differ (__TIME__, __DATE__, __TIMESTAMP__), each with
/// its first line: "__TIME__ (line 12)".
std::vector<std::string> time_dependent_macros(const std::string& text);

}  // namespace rpl::optimize
