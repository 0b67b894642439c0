#include <rpl/workflow/trace_inputs.hpp>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include <rpl/backends/ncu_report.hpp>
#include <rpl/core/error.hpp>
#include <rpl/hal/arch.hpp>
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

void assume_architecture(trace::Trace& trace, std::string_view arch) {
  const auto vendor = hal::vendor_of(arch);
  if (!vendor) hal::fail_unknown_arch(arch);
  const std::string name = hal::normalize_arch_name(arch);
  const std::string vendor_name = *vendor == hal::Vendor::amd ? "AMD" : "NVIDIA";
  auto path_of = [&](int source) {
    return source >= 0 && static_cast<size_t>(source) < trace.sources.size() ? trace.sources[static_cast<size_t>(source)].path
                                                                              : std::string("the trace");
  };
  // Dispatches on no agent (a reader that found no GPU at all) get one of their source's.
  std::map<int16_t, int16_t> agent_of_source;
  for (auto& d : trace.dispatches) {
    if (d.agent >= 0) continue;
    auto [it, added] = agent_of_source.try_emplace(d.source, static_cast<int16_t>(trace.agents.size()));
    if (added) {
      if (trace.agents.size() >= INT16_MAX) fail(Errc::bad_input, "{}: more than {} agents", path_of(d.source), INT16_MAX);
      trace::Agent a;
      a.source = d.source;
      a.type = "GPU";
      trace.agents.push_back(std::move(a));
    }
    d.agent = it->second;
  }
  std::set<std::string> given, recorded;
  for (auto& agent : trace.agents) {
    if (agent.type != "GPU") continue;
    const std::string path = path_of(agent.source);
    if (agent.name.empty()) {
      if (!agent.vendor_name.empty() && agent.vendor_name != vendor_name) {
        fail(Errc::bad_input, "--arch {} is an architecture of {}'s, and {} was recorded on an {} GPU", arch, vendor_name, path,
             agent.vendor_name);
      }
      agent.name = name;
      agent.vendor_name = vendor_name;
      given.insert(path);
    } else if (agent.name != name) {
      recorded.insert(fmt::format("{} ({})", path, agent.name));
    }
  }
  // The readers' warnings that the GPU is not known give way to the one that names it.
  std::erase_if(trace.warnings, [&](const std::string& w) {
    return w.find(trace::kGpuNotKnown) != std::string::npos &&
           std::any_of(given.begin(), given.end(), [&](const std::string& path) { return w.starts_with(path + ":"); });
  });
  for (const auto& path : given) {
    trace.warnings.push_back(fmt::format("{}: the trace does not record its GPU: taken as {} (--arch)", path, name));
  }
  for (const auto& what : recorded) {
    trace.warnings.push_back(fmt::format("{} records its GPU: --arch {} is not used for it", what, name));
  }
}

}  // namespace rpl::workflow
