// The optimize loop's real seams: the user's --build, the code object and inspect readers, the
// vendor's tracer, the replayer and compute-sanitizer. Tests put doubles in their place.
#include <memory>

#include <nlohmann/json.hpp>

#include <rpl/analysis/inspect.hpp>
#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/isolate_runs.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "optimize_session.hpp"

namespace rpl::workflow::optimize_steps {
namespace {

backends::ReplayRequest full_vm(const fs::path& snapshot, double timeout) {
  backends::ReplayRequest r;
  r.mode = "full-vm";
  r.capture_dir = snapshot;
  r.timeout_seconds = timeout;
  return r;
}

}  // namespace

OptimizeSeams with_real_seams(const OptimizeRequest& o) {
  OptimizeSeams s = o.seams;
  const double timeout = o.timeout;
  if (!s.build) {
    auto builder = std::make_shared<optimize::VariantBuilder>(o.build, fs::absolute(o.source), o.build_timeout);
    s.build = [builder, jobs = o.jobs](const std::vector<std::pair<std::string, fs::path>>& variants) {
      return builder->build_all(variants, jobs);
    };
  }
  if (!s.code_object) s.code_object = optimize::kernel_code_object;
  if (!s.inspect) {
    s.inspect = [](const fs::path& binary, const analysis::InspectOptions& options) -> std::optional<analysis::InspectedKernel> {
      auto report = analysis::inspect_binary(binary, options);
      if (report.kernels.empty()) return std::nullopt;
      return std::move(report.kernels.front());
    };
  }
  if (!s.trace) {
    s.trace = [](const std::string& vendor, const backends::RunOptions& run, const fs::path& dir) {
      return trace::read_rocpd(vendor == "amd" ? backends::trace_with_rocprofv3(run, dir) : backends::trace_with_cupti(run, dir));
    };
  }
  if (!s.replay) {
    s.replay = [timeout](const std::string& vendor, const fs::path& snapshot, const fs::path& dump) {
      create_output_folder(dump);
      auto r = full_vm(snapshot, timeout);
      r.dump_dir = dump;
      backends::replay_snapshot(vendor, r);
    };
  }
  if (!s.time_replay) {
    s.time_replay = [timeout](const std::string& vendor, const fs::path& snapshot, uint64_t launches) {
      auto r = full_vm(snapshot, timeout);
      r.iterations = launches;
      const auto doc = nlohmann::json::parse(backends::replay_snapshot(vendor, r).document);
      return doc.at("gpu_time_ms").at("median").get<double>();
    };
  }
  if (!s.find_sanitizer) s.find_sanitizer = optimize::find_compute_sanitizer;
  if (!s.sanitized_replay) {
    s.sanitized_replay = [timeout](const fs::path& sanitizer, const std::string& tool, const fs::path& snapshot) {
      return backends::replay_under_sanitizer(sanitizer, tool, full_vm(snapshot, timeout));
    };
  }
  if (!s.amd_profiler_found) s.amd_profiler_found = [] { return backends::find_rocprofv3().has_value(); };
  return s;
}

}  // namespace rpl::workflow::optimize_steps
