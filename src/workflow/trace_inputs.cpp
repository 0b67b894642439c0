#include <rpl/workflow/trace_inputs.hpp>

#include <rpl/core/error.hpp>
#include <rpl/workflow/profile_folder.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;

std::vector<fs::path> trace_files(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    const auto runs = run_databases(input);
    if (runs.empty()) {
      fail(Errc::bad_input, "{}: a folder with no trace in it; give a rocpd database, or a folder that rocm-perf profile wrote "
                            "(its .rocpd_profile/run*.db)", input.string());
    }
    files.insert(files.end(), runs.begin(), runs.end());
  }
  return files;
}

trace::Trace read_trace_inputs(const std::vector<fs::path>& inputs, const trace::ReadOptions& options) {
  return trace::read_rocpd(trace_files(inputs), options);
}

}  // namespace rpl::workflow
