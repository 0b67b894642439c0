#include <rpl/backends/slurm.hpp>

#include <unistd.h>

#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/text.hpp>

namespace rpl::backends {
namespace fs = std::filesystem;
namespace {

// Cancels the allocation by its name once the controller is gone, however it ended (SIGKILL
// included): the allocation then lives no longer than the controller. $1 the controller's pid, $2
// the job's name; both are ours, never the user's.
constexpr const char* kWatchdog =
    "while kill -0 \"$1\" 2>/dev/null; do sleep 1; done; scancel --name=\"$2\" >/dev/null 2>&1";

std::string random_hex(size_t digits) {
  std::random_device device;
  std::string out;
  while (out.size() < digits) out += fmt::format("{:08x}", device());
  return out.substr(0, digits);
}

ProcessResult run_slurm_command(std::vector<std::string> argv, const std::atomic<bool>* cancel = nullptr) {
  ProcessOptions p;
  p.argv = std::move(argv);
  p.capture_output = true;
  p.cancel = cancel;
  log::debug(fmt::format("slurm: {}", display_command(p.argv)));
  return run_process(p);
}

// The lines of Slurm's output that say what went wrong ("salloc: error: ..."), joined; else all of it.
std::string scheduler_message(const std::string& output) {
  std::istringstream lines(output);
  std::string errors;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("error") != std::string::npos) errors += (errors.empty() ? "" : "; ") + trimmed(line);
  }
  return errors.empty() ? trimmed(output) : errors;
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

void write_step_status(const fs::path& file, const StepStatus& s) {
  nlohmann::json j = {{"node", s.node},
                      {"finished", s.finished},
                      {"exit_status", s.process.exit_status},
                      {"term_signal", s.process.term_signal},
                      {"timed_out", s.process.timed_out},
                      {"wall_seconds", s.process.wall_seconds},
                      {"error", s.error}};
  write_output_file(file, j.dump() + "\n");
}

std::optional<StepStatus> read_step_status(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(read_file(file, 1 << 20));
    StepStatus s;
    s.node = j.at("node").get<std::string>();
    s.finished = j.at("finished").get<bool>();
    s.process.exit_status = j.at("exit_status").get<int>();
    s.process.term_signal = j.at("term_signal").get<int>();
    s.process.timed_out = j.at("timed_out").get<bool>();
    s.process.wall_seconds = j.at("wall_seconds").get<double>();
    s.error = j.at("error").get<std::string>();
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

SlurmAllocation::SlurmAllocation(SlurmOptions options) : options_(std::move(options)) {
  for (const char* tool : {"salloc", "srun", "squeue", "scancel", "scontrol"}) {
    if (!find_executable(tool)) {
      fail(Errc::missing_tool, "--launcher slurm: {} is not installed here (Slurm's client commands run every step)", tool);
    }
  }
  name_ = "rocm-perf-autotune-" + random_hex(8);
}

void SlurmAllocation::allocate(const std::atomic<bool>* stop) {
  spawn_detached({"sh", "-c", kWatchdog, "rocm-perf-watchdog", std::to_string(::getpid()), name_});

  std::vector<std::string> argv{"salloc", "--no-shell", fmt::format("--ntasks={}", options_.workers)};
  if (options_.gpus_per_step > 0) argv.push_back(fmt::format("--gpus-per-task={}", options_.gpus_per_step));
  argv.insert(argv.end(), options_.allocation_args.begin(), options_.allocation_args.end());
  argv.push_back("--job-name=" + name_);
  asked_ = true;
  const auto granted = run_slurm_command(argv, stop);
  if (granted.cancelled) {
    cancel();
    fail(Errc::run_failed, "interrupted while waiting for the Slurm allocation; nothing was measured");
  }
  if (!granted.ok()) {
    fail(Errc::run_failed, "Slurm refused the allocation ({}): {}", display_command(argv), scheduler_message(granted.output));
  }
  std::smatch match;
  static const std::regex kGranted("Granted job allocation ([0-9]+)");
  if (std::regex_search(granted.output, match, kGranted)) {
    job_id_ = match[1].str();
  } else {  // salloc --quiet says nothing: ask by name
    job_id_ = trimmed(run_slurm_command({"squeue", "-h", "--name=" + name_, "-o", "%i"}).output);
  }
  if (job_id_.empty() || job_id_.find_first_not_of("0123456789") != std::string::npos) {
    cancel();
    fail(Errc::run_failed, "Slurm granted an allocation, but its job id could not be read: {}", trimmed(granted.output));
  }
  const auto list = run_slurm_command({"squeue", "-h", "-j", job_id_, "-o", "%N"});
  const auto hosts = run_slurm_command({"scontrol", "show", "hostnames", trimmed(list.output)});
  nodes_ = words_of(hosts.output);
  if (!list.ok() || !hosts.ok() || nodes_.empty()) {
    cancel();
    fail(Errc::run_failed, "the nodes of Slurm job {} could not be read: {}", job_id_, scheduler_message(list.output + hosts.output));
  }
  log::debug(fmt::format("slurm: job {} on {}", job_id_, fmt::join(nodes_, ",")));
}

SlurmAllocation::~SlurmAllocation() { cancel(); }

void SlurmAllocation::cancel() {
  if (cancelled_ || (job_id_.empty() && !asked_)) return;
  cancelled_ = true;
  // Never itself stopped by the Ctrl-C that may be why it runs: the allocation must go.
  static const std::atomic<bool> never{false};
  try {
    run_slurm_command({"scancel", job_id_.empty() ? "--name=" + name_ : job_id_}, &never);
  } catch (const std::exception&) {
  }
}

bool SlurmAllocation::running() const {
  const auto r = run_slurm_command({"squeue", "-h", "-j", job_id_, "-o", "%T"});
  // A controller too busy to answer is no ended job; one that no longer knows the job is.
  if (!r.ok()) return r.output.find("Invalid job id") == std::string::npos;
  return trimmed(r.output) == "RUNNING";
}

std::vector<std::string> SlurmAllocation::step_prefix(const fs::path& status_file, std::optional<double> timeout_seconds,
                                                      bool with_gpus, const std::vector<std::string>& exclude) const {
  std::vector<std::string> out{"srun", "--jobid=" + job_id_, "--exact", "--nodes=1", "--ntasks=1", "--quiet"};
  if (with_gpus && options_.gpus_per_step > 0) out.push_back(fmt::format("--gpus={}", options_.gpus_per_step));
  // Another node only while one is left: excluding every node of the allocation fails the step.
  if (!exclude.empty() && exclude.size() < nodes_.size()) out.push_back(fmt::format("--exclude={}", fmt::join(exclude, ",")));
  out.insert(out.end(), {"--", options_.step_program.string(), "slurm-step", "--status", status_file.string()});
  if (timeout_seconds) out.insert(out.end(), {"--timeout", fmt::format("{}", *timeout_seconds)});
  out.push_back("--");
  return out;
}

std::vector<NodeProbe> SlurmAllocation::probe_nodes(const fs::path& folder, const std::atomic<bool>* stop) {
  const std::string token = random_hex(16);
  const fs::path file = fs::absolute(folder) / (".slurm-probe-" + token);
  write_output_file(file, token);
  const size_t n = nodes_.size();
  std::vector<std::string> argv{"srun", "--jobid=" + job_id_, "--exact", fmt::format("--nodes={}", n), fmt::format("--ntasks={}", n),
                                "--ntasks-per-node=1", "--quiet"};
  if (options_.gpus_per_step > 0) argv.push_back(fmt::format("--gpus-per-task={}", options_.gpus_per_step));
  argv.insert(argv.end(), {"--", options_.step_program.string(), "slurm-step", "--probe", file.string(), token});
  const auto r = run_slurm_command(argv, stop);
  std::error_code ec;
  fs::remove(file, ec);
  if (r.cancelled) fail(Errc::run_failed, "interrupted while checking the Slurm nodes; nothing was measured");
  std::vector<NodeProbe> probes;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    // "rocm-perf-probe NODE sees|blind GPU NAME..."
    const auto w = words_of(line);
    if (w.size() < 3 || w[0] != "rocm-perf-probe") continue;
    NodeProbe p;
    p.node = w[1];
    p.sees_folder = w[2] == "sees";
    const auto gpu = line.find(" gpu ");
    if (gpu != std::string::npos) p.gpu = trimmed(line.substr(gpu + 5));
    probes.push_back(p);
  }
  for (const auto& p : probes) {
    if (!p.sees_folder) {
      fail(Errc::bad_input, "--shared-dir {}: node {} does not see it (the steps write their runs and builds there): give a "
                            "folder on storage that every node mounts",
           folder.string(), p.node);
    }
  }
  if (!r.ok() || probes.size() != n) {
    fail(Errc::missing_tool, "--launcher slurm: the steps could not run {} on every node ({}): install rocm-perf where the nodes "
                             "see it at the same path",
         options_.step_program.string(), scheduler_message(r.output));
  }
  std::sort(probes.begin(), probes.end(), [](const NodeProbe& a, const NodeProbe& b) { return a.node < b.node; });
  return probes;
}

std::string step_end_clue(const fs::path& log) {
  std::ifstream in(log, std::ios::binary);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (line.find("*** STEP") != std::string::npos || line.find("*** JOB") != std::string::npos) return trimmed(line);
    if (!trimmed(line).empty()) last = std::move(line);
  }
  return last_line(last);
}

}  // namespace rpl::backends
