// rocm-perf isolate --kernel REGEX [--dispatch N] [--out DIR] -- CMD [ARGS...]
#include <iostream>

#include <rpl/backends/isolate_runs.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/isolate/capture_summary.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/report/isolate_report.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
namespace {

struct IsolateOptions {
  OutputOptions output;
  std::string kernel;
  uint64_t dispatch = 0;
  std::string out_dir = "rocm-perf-snapshot";
  std::string backend = "auto";
  double timeout = 0;
  bool quiet_app = false;
};

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
  const fs::path old = out.parent_path() / ("." + out.filename().string() + ".previous");
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

Action add_isolate_command(CLI::App& app, const std::vector<std::string>& program) {
  auto o = std::make_shared<IsolateOptions>();
  auto* cmd = app.add_subcommand("isolate", "capture one kernel dispatch of a program into a snapshot folder, for replay");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("--kernel", o->kernel, "regular expression on the kernel's mangled or demangled name")->required();
  cmd->add_option("--dispatch", o->dispatch, "which launch of that kernel to capture, from 0")->capture_default_str();
  cmd->add_option("--out", o->out_dir, "the snapshot folder (replaced if it holds an earlier snapshot)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "auto, cuda, or rocm (the AMD capture has not run on AMD hardware yet)")
      ->check(CLI::IsMember({"auto", "cuda", "rocm"}))
      ->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds the program may take before its process group is killed")->check(CLI::PositiveNumber);
  cmd->add_flag("--quiet-app", o->quiet_app, "keep the program's own output out of the terminal (it is kept in run.log)");
  return [o, program]() -> int {
    log::set_debug(o->output.debug);
    if (program.empty()) fail(Errc::bad_input, "give the program to run after --");
    StopSignals stop;  // Ctrl-C stops the program; the staging folder is removed on the way out
    backends::CaptureRequest request;
    request.run.command = program;
    if (o->timeout > 0) request.run.timeout_seconds = o->timeout;
    request.run.quiet_app = o->quiet_app;
    request.run.trace_level = "kernels";  // the capture needs the launches, not their dependencies
    request.run.app_stdout_to_stderr = o->output.json;
    request.kernel_regex = o->kernel;
    request.dispatch_index = o->dispatch;
    backends::check_program_exists(request.run);
    // A link to a snapshot folder is followed: the folder it names is replaced, never the link.
    const fs::path out = fs::absolute(follow_output_links(o->out_dir)).lexically_normal();
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
    } cleanup{staging, o->output.debug};
    request.snapshot_dir = staging;

    // auto: AMD where ROCm is installed, else NVIDIA (which says why it cannot run, if it cannot).
    const std::string backend = o->backend == "auto" ? (backends::find_rocprofv3() ? "rocm" : "cuda") : o->backend;
    const auto run = backends::capture_dispatch(backend == "rocm" ? "amd" : "nvidia", request);
    const std::string command = display_command(program);
    if (run.process.cancelled) fail(Errc::run_failed, "interrupted; nothing was captured, and {} is as it was before", out.string());
    if (!run.status_json && run.process.ok()) {
      fail(Errc::run_failed, "{} ran to completion without starting the GPU runtime: nothing was captured", command);
    }
    if (!run.status_json) {
      fail(Errc::run_failed, "{} {} before the capture reported anything", command, run.process.describe(o->timeout));
    }
    const auto status = isolate::parse_capture_status(*run.status_json, staging / "capture_status.json");
    if (!status.captured && !status.error.empty()) fail(Errc::run_failed, "the capture failed: {}", status.error);
    if (!status.captured) {
      fail(Errc::bad_input, "nothing was captured: {} launched no dispatch {} of a kernel matching '{}' (it launched {})",
           command, o->dispatch, o->kernel, launches_text(status.launches));
    }
    report::IsolateFacts facts;
    facts.status = status;
    facts.dispatch = isolate::read_snapshot(staging).dispatch;
    facts.program_wall_s = run.process.wall_seconds;
    facts.program_exit_status = run.process.exit_status;
    if (!run.process.ok()) {
      facts.status.warnings.push_back(fmt::format("{} {} after the capture; the snapshot was kept", command, run.process.describe(o->timeout)));
    }
    if (!run.databases.empty()) {
      facts.program_time = isolate::kernel_time_in_trace(trace::read_rocpd(run.databases), status.kernel, status.dispatch_index);
    }
    facts.snapshot_dir = out.string();
    facts.snapshot_bytes = folder_bytes(staging);
    const auto doc = report::isolate_json(facts);
    write_output_file(staging / "isolate.json", report::dump(doc));
    cleanup.keep = true;  // from here on, the snapshot is never deleted
    replace_folder(staging, out);
    if (o->output.json) {
      std::cout << report::dump(doc);
    } else {
      std::cout << report::isolate_text(facts);
      print_warnings(facts.status.warnings);
    }
    return 0;
  };
}

}  // namespace rpl::cli
