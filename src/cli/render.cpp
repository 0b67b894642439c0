#include "render.hpp"

#include <iostream>

#include <fmt/format.h>

#include <rpl/report/text.hpp>

namespace rpl::cli {

int render_profile(const analysis::ProfileSummary& summary, const report::Json& document, const OutputOptions& output,
                   const std::string& closing_text) {
  if (output.json) {
    std::cout << report::dump(document);
  } else if (output.quiet) {
    std::cout << fmt::format("{}\n", report::round6(summary.runtime_ms));
  } else {
    std::cout << report::profile_text(summary, output.names) << closing_text;
    print_warnings(summary.warnings);
  }
  return 0;
}

}  // namespace rpl::cli
