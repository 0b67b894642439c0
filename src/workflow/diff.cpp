#include <rpl/workflow/diff.hpp>

#include <algorithm>

#include <fmt/format.h>

#include <rpl/analysis/profile_summary.hpp>
#include <rpl/analysis/short_names.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/workflow/profile_folder.hpp>
#include <rpl/workflow/trace_inputs.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
using Json = nlohmann::json;
namespace {

// A profile.json alone knows its dominant kernel: its time in all runs and its dispatches' spread.
analysis::ProfileTimes times_from_summary(const Json& summary, const fs::path& file) {
  analysis::ProfileTimes t;
  const auto& k = summary.value("kernel", Json());
  const auto& s = summary.value("stability", Json());
  if (!k.is_object() || !s.is_object() || !k.value("total_ms", Json()).is_number() || !s.value("runs", Json()).is_number()) {
    fail(Errc::bad_input, "{}: not a rocm-perf profile.json with a kernel (no kernel.total_ms or stability.runs)", file.string());
  }
  t.runs = std::max(1, s["runs"].get<int>());
  analysis::KernelTimes kt;
  kt.name = k.value("name", std::string("?"));
  kt.run_ms.assign(static_cast<size_t>(t.runs), k["total_ms"].get<double>() / t.runs);
  kt.dispatches = k.value("dispatches", size_t{1});
  kt.dispatch_stddev_ms = s.value("stddev_ms", 0.0);
  t.kernels.push_back(std::move(kt));
  return t;
}

// A product a trace does not name (the table's stand-in) differs from no other of its architecture.
bool different_gpus(const analysis::GpuSummary& a, const analysis::GpuSummary& b) {
  return a.architecture != b.architecture || (a.product_recorded && b.product_recorded && a.product != b.product);
}

// What diff needs of profile.json besides the times: the GPU, the dominant kernel's occupancy.
void read_summary(const Json& summary, DiffProfile& p) {
  if (const auto& gpu = summary.value("gpu", Json()); gpu.is_object()) {
    p.gpu.emplace();
    p.gpu->product = gpu.value("product", std::string());
    p.gpu->architecture = gpu.value("architecture", std::string());
    p.gpu->product_recorded = gpu.value("product_recorded", true);  // written before the field was: recorded
  }
  const auto& k = summary.value("kernel", Json());
  const auto& o = summary.value("occupancy", Json());
  if (k.is_object()) p.dominant_kernel = k.value("name", std::string());
  if (o.is_object() && o.value("theoretical", Json()).is_number()) p.dominant_occupancy = o["theoretical"].get<double>();
}

// The trace files a path stands for where it is no rocm-perf profile: a trace of any format, or a
// folder of them without a profile.json; none otherwise.
std::vector<fs::path> traces_of(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return trace::trace_format(path) ? std::vector<fs::path>{path} : std::vector<fs::path>{};
  if (!fs::is_directory(path, ec) || fs::exists(path / "profile.json", ec)) return {};
  try {
    return trace_files({path});
  } catch (const Error&) {
    return {};  // a folder of neither: said below
  }
}

// A trace's kernels' times, and the GPU and the dominant kernel's occupancy from its summary, as
// profile.json would have them.
void read_trace(const std::vector<fs::path>& files, DiffProfile& p) {
  const auto trace = read_trace_files(files);
  const auto summary = analysis::summarize_trace(trace, {});
  p.gpu = summary.gpu;
  if (summary.kernel) p.dominant_kernel = summary.kernel->name;
  if (summary.occupancy) p.dominant_occupancy = summary.occupancy->theoretical;
  p.times = analysis::kernel_times(trace);
  p.from_traces = true;
}

DiffProfile load_profile(const fs::path& path) {
  DiffProfile p;
  p.path = path.string();
  std::error_code ec;
  if (const auto traces = traces_of(path); !traces.empty()) {
    read_trace(traces, p);
  } else if (fs::is_directory(path, ec)) {
    const fs::path summary_file = path / "profile.json";
    if (!fs::is_regular_file(summary_file, ec)) {
      fail(Errc::bad_input,
           "{}: no profile.json here, nor a trace; give a folder that rocm-perf profile wrote, its profile.json, or a trace "
           "(rocpd, rocprofv3, rocprof, rocprof-compute, PyTorch profiler, Nsight Systems, Nsight Compute)",
           path.string());
    }
    const Json summary = read_json_document(summary_file);
    read_summary(summary, p);
    const auto dbs = run_databases(path);
    p.from_traces = !dbs.empty();
    p.times = p.from_traces ? analysis::kernel_times(trace::read_rocpd(dbs)) : times_from_summary(summary, summary_file);
    p.roofline_position = roofline_positions(optional_json_document(path / "roofline.json"));
  } else if (fs::is_regular_file(path, ec)) {
    const Json summary = read_json_document(path);
    read_summary(summary, p);
    p.times = times_from_summary(summary, path);
  } else {
    fail(Errc::bad_input, "{}: no such profile folder or file", path.string());
  }
  return p;
}

}  // namespace

std::string DiffProfile::gpu_label() const {
  if (!gpu) return "";
  return gpu->product_recorded ? gpu->product + " (" + gpu->architecture + ")" : gpu->architecture + ", product not recorded";
}

std::optional<double> DiffProfile::occupancy_of(const std::string& kernel) const {
  return kernel == dominant_kernel ? dominant_occupancy : std::nullopt;
}

DiffResult run_diff(const DiffRequest& request, Control& control) {
  DiffResult r;
  control.stage_started("read");
  r.before = as_written(request.before, [&] { return load_profile(request.before); });
  r.after = as_written(request.after, [&] { return load_profile(request.after); });
  control.stage_finished("read");
  auto warn = [&](std::string message) {
    control.warning("read", message);
    r.warnings.push_back(std::move(message));
  };
  if (r.before.gpu && r.after.gpu && different_gpus(*r.before.gpu, *r.after.gpu)) {
    warn(fmt::format("the profiles ran on different GPUs ({} and {}); compared anyway", r.before.gpu_label(), r.after.gpu_label()));
  }
  if (r.before.from_traces != r.after.from_traces) warn("one profile is a profile.json alone: only its dominant kernel can be compared");
  control.stage_started("compare");
  r.changes = analysis::compare_kernel_times(r.before.times, r.after.times);
  std::vector<std::string> names;
  for (const auto& c : r.changes) names.push_back(c.name);
  r.short_names = analysis::unique_short_names(names);
  r.fail_on_regression_pct = request.fail_on_regression_pct;
  for (size_t i = 0; i < r.changes.size(); ++i) {
    const auto& c = r.changes[i];
    if (request.fail_on_regression_pct && c.verdict == analysis::Verdict::slower && c.change_pct > *request.fail_on_regression_pct) {
      r.regressions.push_back(i);
    }
  }
  const auto unmeasured = std::count_if(r.changes.begin(), r.changes.end(), [](const analysis::KernelChange& c) {
    return !c.noise_pct && (c.verdict == analysis::Verdict::faster || c.verdict == analysis::Verdict::slower);
  });
  if (unmeasured > 0) {
    r.warnings.push_back(fmt::format("{} kernel{} judged faster or slower with no noise measured (neither profile's dispatches or runs of "
                                     "it varied, as where it ran once a side): any change counts there; profile with --runs 3 or more "
                                     "to judge such changes",
                                     unmeasured, unmeasured == 1 ? " was" : "s were"));
    control.warning("compare", r.warnings.back());
  }
  control.stage_finished("compare");
  return r;
}

}  // namespace rpl::workflow
