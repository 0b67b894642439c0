#include <rpl/workflow/isolate.hpp>

#include <fmt/format.h>

#include <rpl/backends/isolate_runs.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/isolate/capture_summary.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;
namespace {

uint64_t folder_bytes(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  }
  return total;
}

// The output folder may be replaced only when it is absent, empty, or an earlier snapshot.
void check_replaceable(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) fail(Errc::bad_input, "{}: exists and is not a folder; choose another --out", out.string());
  if (fs::is_empty(out, ec) || fs::exists(out / "dispatch.json", ec) || fs::exists(out / "capture_status.json", ec)) return;
  fail(Errc::bad_input, "{}: exists and is not a snapshot folder; choose another --out (nothing was run)", out.string());
}

// Moves the complete staging folder to out; an earlier snapshot there goes only after that.
void replace_folder(const fs::path& staging, const fs::path& out) {
  const fs::path old = out.parent_path() / fmt::format(".{}.previous", out.filename().string());
  std::error_code ec;
  fs::remove_all(old, ec);
  if (fs::exists(out, ec)) {
    fs::rename(out, old, ec);
    if (ec) fail(Errc::run_failed, "{}: cannot move the earlier snapshot aside: {} (the new one is in {})", out.string(), ec.message(), staging.string());
  }
  fs::rename(staging, out, ec);
  if (ec) fail(Errc::run_failed, "{}: cannot move the snapshot into place: {} (it is in {})", out.string(), ec.message(), staging.string());
  fs::remove_all(old, ec);
}

std::string launches_text(const std::map<std::string, uint64_t>& launches) {
  std::string out;
  size_t shown = 0;
  for (const auto& [name, count] : launches) {
    if (++shown > 8) {
      out += fmt::format(", and {} more", launches.size() - 8);
      break;
    }
    out += fmt::format("{}{} ({}x)", out.empty() ? "" : ", ", name, count);
  }
  return out.empty() ? "no kernels" : out;
}

}  // namespace

report::IsolateFacts run_isolate(const IsolateRequest& r, Control& control) {
  backends::CaptureRequest request;
  request.run.command = r.program;
  if (r.timeout > 0) request.run.timeout_seconds = r.timeout;
  request.run.quiet_app = r.quiet_app;
  request.run.trace_level = "kernels";  // the capture needs the launches, not their dependencies
  request.run.app_stdout_to_stderr = r.app_stdout_to_stderr;
  request.kernel_regex = r.kernel_regex;
  request.dispatch_index = r.dispatch;
  backends::check_program_exists(request.run);
  // A link to a snapshot folder is followed: the folder it names is replaced, never the link.
  const fs::path out = fs::absolute(follow_output_links(r.out)).lexically_normal();
  check_replaceable(out);
  create_output_folder(out.parent_path());
  std::error_code ec;
  // The capture fills a fresh folder beside the target, which replaces it only once complete.
  const fs::path staging = out.parent_path() / ("." + out.filename().string() + ".capturing");
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec) fail(Errc::bad_input, "{}: cannot create the snapshot folder: {}", staging.string(), ec.message());
  struct Cleanup {
    fs::path dir;
    bool keep = false;
    ~Cleanup() {
      std::error_code ignored;
      if (!keep) fs::remove_all(dir, ignored);
    }
  } cleanup{staging, r.keep_staging};
  request.snapshot_dir = staging;

  // auto: AMD where ROCm is installed, else NVIDIA (which says why it cannot run, if it cannot).
  const std::string backend = r.backend == "auto" ? (backends::find_rocprofv3() ? "rocm" : "cuda") : r.backend;
  control.stage_started("capture");
  const auto run = (r.capture ? r.capture : backends::capture_dispatch)(backend == "rocm" ? "amd" : "nvidia", request);
  control.stage_finished("capture");
  const std::string command = display_command(r.program);
  if (run.process.cancelled) fail(Errc::run_failed, "interrupted; nothing was captured, and {} is as it was before", out.string());
  if (!run.status_json && run.process.ok()) {
    fail(Errc::run_failed, "{} ran to completion without starting the GPU runtime: nothing was captured", command);
  }
  if (!run.status_json) {
    fail(Errc::run_failed, "{} {} before the capture reported anything", command, run.process.describe(r.timeout));
  }
  const auto status = isolate::parse_capture_status(*run.status_json, staging / "capture_status.json");
  if (!status.captured && !status.error.empty()) fail(Errc::run_failed, "the capture failed: {}", status.error);
  if (!status.captured) {
    fail(Errc::bad_input, "nothing was captured: {} launched no dispatch {} of a kernel matching '{}' (it launched {})",
         command, r.dispatch, r.kernel_regex, launches_text(status.launches));
  }
  report::IsolateFacts facts;
  facts.status = status;
  facts.dispatch = isolate::read_snapshot(staging).dispatch;
  facts.program_wall_s = run.process.wall_seconds;
  facts.program_exit_status = run.process.exit_status;
  if (!run.process.ok()) {
    facts.status.warnings.push_back(fmt::format("{} {} after the capture; the snapshot was kept", command, run.process.describe(r.timeout)));
  }
  if (!run.databases.empty()) {
    facts.program_time = isolate::kernel_time_in_trace(trace::read_rocpd(run.databases), status.kernel, status.dispatch_index);
  }
  facts.snapshot_dir = out.string();
  facts.snapshot_bytes = folder_bytes(staging);
  write_output_file(staging / "isolate.json", report::dump(report::isolate_json(facts)));
  cleanup.keep = true;  // from here on, the snapshot is never deleted
  replace_folder(staging, out);
  return facts;
}

}  // namespace rpl::workflow
