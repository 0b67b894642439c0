#include <rpl/backends/isolate_runs.hpp>

#include <nlohmann/json.hpp>

#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/installed_files.hpp>
#include <rpl/backends/single_run.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/text.hpp>

namespace rpl::backends {
namespace fs = std::filesystem;

CaptureRun capture_dispatch(const std::string& vendor, const CaptureRequest& request) {
  const auto& dir = request.snapshot_dir;
  std::vector<std::pair<std::string, std::string>> env = {{"RPL_CAPTURE_DIR", dir.string()},
                                                          {"RPL_CAPTURE_KERNEL", request.kernel_regex},
                                                          {"RPL_CAPTURE_DISPATCH", std::to_string(request.dispatch_index)}};
  std::string backend = "cuda";
  if (vendor == "amd") {
    // ROCr loads the tool; no tracer runs beside it (rocprofv3 would keep it from loading).
    const auto tool = find_installed_file("RPL_HSA_CAPTURE_LIB", "librpl_hsa_capture.so");
    if (!tool) fail(Errc::missing_tool, "rocm-perf's AMD capture tool (librpl_hsa_capture.so) is not built: it needs the HSA headers");
    env.emplace_back("HSA_TOOLS_LIB", tool->string());
    env.emplace_back("HSA_TOOLS_REPORT_LOAD_FAILURE", "1");
    backend = "wallclock";
  }
  const SingleRunner runner(backend, request.run);
  const auto run = runner.run(dir, request.run.command, env);
  if (run.refusal) fail(Errc::missing_tool, "{}", *run.refusal);
  CaptureRun out;
  out.process = run.process;
  out.log_file = run.log_file;
  out.databases = run.databases;
  std::error_code ec;
  if (fs::is_regular_file(dir / "capture_status.json", ec)) out.status_json = read_file(dir / "capture_status.json");
  return out;
}

std::optional<fs::path> find_replayer(const std::string& vendor) {
  return vendor == "amd" ? find_installed_file("RPL_HSA_REPLAY", "rpl-hsa-replay") : find_installed_file("RPL_CUDA_REPLAY", "rpl-cuda-replay");
}

namespace {

constexpr int kReplayAttempts = 3;

std::vector<std::string> replayer_argv(const fs::path& replayer, const ReplayRequest& request, const fs::path& result) {
  std::vector<std::string> argv = {replayer.string(), request.mode, "--capture-dir", request.capture_dir.string(), "--result", result.string()};
  if (request.mode == "full-vm") {
    argv.insert(argv.end(), {"--iterations", std::to_string(request.iterations)});
    if (!request.recopy) argv.push_back("--no-recopy");
    if (request.dump_dir) argv.insert(argv.end(), {"--dump-outputs", request.dump_dir->string()});
  }
  return argv;
}

// One run of the replayer, behind the words of wrapper (a tool that runs it), and its result
// document (null where it wrote none readable).
std::pair<ReplayRun, nlohmann::json> run_replayer(const fs::path& replayer, const ReplayRequest& request,
                                                  const std::vector<std::string>& wrapper = {}) {
  TempDir temp("rpl-replay");
  const fs::path result = temp.path() / "result.json";
  ProcessOptions p;
  p.argv = wrapper;
  const auto argv = replayer_argv(replayer, request, result);
  p.argv.insert(p.argv.end(), argv.begin(), argv.end());
  p.capture_output = true;
  if (request.timeout_seconds) p.timeout = std::chrono::duration<double>(*request.timeout_seconds);
  log::debug(fmt::format("replay: {}", display_command(p.argv)));
  const auto process = run_process(p);
  std::error_code ec;
  if (!fs::is_regular_file(result, ec)) {
    const std::string said = last_line(process.output);
    fail(Errc::run_failed, "the replayer {}{}{}", process.describe(request.timeout_seconds.value_or(0)), said.empty() ? "" : ": ", said);
  }
  ReplayRun out{process.exit_status, read_file(result)};
  auto doc = nlohmann::json::parse(out.document, nullptr, false);
  return {std::move(out), std::move(doc)};
}

fs::path replayer_for(const std::string& vendor) {
  const auto replayer = find_replayer(vendor);
  if (!replayer) {
    fail(Errc::missing_tool, "rocm-perf's replayer ({}) is not built: configure rocm-perf with {} installed",
         vendor == "amd" ? "rpl-hsa-replay" : "rpl-cuda-replay", vendor == "amd" ? "the HSA runtime's headers" : "the CUDA toolkit");
  }
  if (vendor == "nvidia") {
    if (auto why = nvidia_gpu_unavailable()) fail(Errc::missing_tool, "cannot replay on NVIDIA: {}", *why);
  }
  return *replayer;
}

bool addresses_taken(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("error") && doc.value("addresses_taken", false);
}

}  // namespace

ReplayRun replay_snapshot(const std::string& vendor, const ReplayRequest& request) {
  const fs::path replayer = replayer_for(vendor);
  // full-vm again in a fresh process where this one found the captured addresses taken (seen on an
  // H100 in 2 of 80 processes, and each time the next process had them: scripts/gpu/probe_relocation.sh).
  const int attempts = request.mode == "full-vm" ? kReplayAttempts : 1;
  for (int attempt = 1;; ++attempt) {
    auto [out, doc] = run_replayer(replayer, request);
    if (doc.is_object() && doc.contains("error")) {
      if (addresses_taken(doc) && attempt < attempts) {
        log::warning(fmt::format("replay: {}; trying again in a fresh process ({} of {})", doc.value("error", std::string()),
                                 attempt + 1, attempts));
        continue;
      }
      const int code = doc.value("exit", exit_code(Errc::run_failed));
      const Errc errc = code == 2 ? Errc::bad_input : code == 3 ? Errc::missing_tool : code == 4 ? Errc::internal : Errc::run_failed;
      fail(errc, "{}{}", doc.value("error", std::string("the replay failed")),
           attempt > 1 ? fmt::format(" in each of {} processes", attempt) : std::string());
    }
    return out;
  }
}

std::string replay_under_sanitizer(const fs::path& sanitizer, const std::string& tool, const ReplayRequest& request) {
  const fs::path replayer = replayer_for("nvidia");
  for (int attempt = 1;; ++attempt) {
    TempDir temp("rpl-sanitizer");
    const fs::path log_file = temp.path() / (tool + ".log");
    // Backtraces of the replayer's own host code say nothing of the kernel; 20 reports are plenty.
    const std::vector<std::string> wrapper = {sanitizer.string(), "--tool", tool, "--log-file", log_file.string(),
                                              "--print-limit", "20", "--show-backtrace", "device"};
    try {
      const auto [out, doc] = run_replayer(replayer, request, wrapper);
      if (addresses_taken(doc) && attempt < kReplayAttempts) continue;
    } catch (const Error& e) {
      if (e.code() == Errc::missing_tool) throw;
      // A replayer that wrote no result under the tool (it crashed): its log says why.
    }
    std::error_code ec;
    if (!fs::is_regular_file(log_file, ec)) fail(Errc::run_failed, "compute-sanitizer --tool {} wrote no log", tool);
    return read_file(log_file);
  }
}

}  // namespace rpl::backends
