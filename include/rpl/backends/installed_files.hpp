#pragma once
// Where rocm-perf finds the programs and libraries it ships beside its own binary: the tracer,
// the capture tools and the replayers, in the build tree and in an installation alike.
#include <filesystem>
#include <optional>
#include <string>

namespace rpl::backends {

/// The file named by the environment variable `env` when it is set (none when that file does not
/// exist), else the first `name` found in our bin/, bin/../lib/ or bin/../lib/rocm-perf/.
std::optional<std::filesystem::path> find_installed_file(const char* env, const std::string& name);

}  // namespace rpl::backends
