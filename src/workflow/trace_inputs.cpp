#include <rpl/workflow/trace_inputs.hpp>

#include <algorithm>

#include <rpl/backends/ncu_report.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/amd_profiler_files.hpp>
#include <rpl/trace/trace_reader.hpp>
#include <rpl/workflow/profile_folder.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
namespace {

// rocprofv3 writes <out>/<host>/<pid>_kernel_trace.csv (or _results.db): a folder is searched this
// deep for the files of its runs.
constexpr int kSearchDepth = 3;

// A rocprofv3 counter_collection.csv with no kernel_trace.csv of its run beside it: a run of counters alone.
bool counters_alone(const fs::path& file) {
  return file.filename().string().ends_with("counter_collection.csv") && trace::rocprofv3_run_file(file) == file;
}

// The trace files under folder, by their content: rocpd databases, rocprofv3 kernel traces (each
// standing for the files of its run beside it, or a counter_collection.csv of a run of counters alone), legacy rocprof's results.csv (or results.db), rocprof-compute's
// pmc_perf.csv, PyTorch profiler traces, Nsight Systems exports (.sqlite), Nsight Compute reports (.ncu-rep).
std::vector<fs::path> traces_in(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= kSearchDepth) it.disable_recursion_pending();
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    const auto ext = it->path().extension();
    const bool candidate = ext == ".db" || ext == ".sqlite" || ext == ".json" || ext == ".ncu-rep" || name.ends_with("kernel_trace.csv") || name == "results.csv" ||
                           name == "pmc_perf.csv" || counters_alone(it->path());
    if (candidate && trace::trace_format(it->path())) found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  // Legacy rocprof writes its rows twice, to results.csv and results.db: one run, read once.
  std::vector<fs::path> runs;
  for (const auto& f : found) {
    if (f.filename() != "results.db" || !std::binary_search(found.begin(), found.end(), f.parent_path() / "results.csv")) runs.push_back(f);
  }
  return runs;
}

}  // namespace

std::vector<fs::path> trace_files(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      files.push_back(input);
      continue;
    }
    auto runs = run_databases(input);
    if (runs.empty()) runs = traces_in(input);
    if (runs.empty()) {
      fail(Errc::bad_input, "{}: a folder with no trace in it; give a trace file or a folder of one: rocm-perf profile's, rocprofv3's "
                            "(rocpd databases or CSV files), legacy rocprof's (results.csv), rocprof-compute's workload, PyTorch profiler traces, Nsight Systems exports (nsys export --type sqlite) or Nsight Compute reports", input.string());
    }
    files.insert(files.end(), runs.begin(), runs.end());
  }
  return files;
}

trace::Trace read_trace_files(const std::vector<fs::path>& files, trace::ReadOptions options) {
  options.ncu_report_pages = backends::ncu_report_pages;
  return trace::read_traces(files, options);
}

trace::Trace read_trace_inputs(const std::vector<fs::path>& inputs, const trace::ReadOptions& options) {
  return read_trace_files(trace_files(inputs), options);
}

}  // namespace rpl::workflow
