#pragma once
// The rocm-perf command line: parse, call the library, render. No analysis happens here.
#include <string>
#include <vector>

namespace rpl::cli {

/// Runs one command line; returns the process exit code (DESIGN.md "Exit codes").
int run(const std::vector<std::string>& args);

}  // namespace rpl::cli
