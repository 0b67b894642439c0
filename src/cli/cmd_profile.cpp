// rocm-perf profile [opts] -- CMD [ARGS...]: parses, calls workflow::run_profile, prints.
#include <iostream>

#include <rpl/core/error.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/workflow/profile.hpp>
#include <rpl/workflow/report.hpp>

#include "analysis_options.hpp"
#include "commands.hpp"
#include "render.hpp"

namespace rpl::cli {
namespace {

struct ProfileOptions {
  OutputOptions output;
  std::string out_dir = "rocm-perf-profile";
  std::string backend = "auto";
  bool no_rocprof = false;
  int runs = 3;
  double timeout = 0;
  std::string kernel;
  bool quiet_app = false;
  std::string trace_level = "default";
  bool counters = false;
  bool roofline = false;
  bool deep = false;
  bool html = false;
  int att_target_cu = 1;
  int roofline_launches = 0;
  std::vector<std::string> metrics;
  std::vector<std::string> command;  // given without "--"
  AnalysisCommandOptions analyses;
};

}  // namespace

Action add_profile_command(CLI::App& app, const std::vector<std::string>& program) {
  auto o = std::make_shared<ProfileOptions>();
  auto* cmd = app.add_subcommand("profile", "run a program under the profiler, analyze its dominant kernel");
  add_output_options(*cmd, o->output, true);
  cmd->add_option("--out", o->out_dir, "output folder (profile.json and .rocpd_profile/)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "auto, rocm or cuda")->check(CLI::IsMember({"auto", "rocm", "cuda"}))->capture_default_str();
  cmd->add_flag("--no-rocprof", o->no_rocprof, "time the whole process instead of tracing kernels");
  cmd->add_option("--runs", o->runs, "how many times to run the program")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds each run may take before its process group is killed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--kernel", o->kernel, "regular expression choosing the kernel to analyze");
  cmd->add_flag("--quiet-app", o->quiet_app, "keep the program's own output out of the terminal (it is still kept in .rocpd_profile/runN.log)");
  cmd->add_option("--trace-level", o->trace_level,
                  "what the trace records: kernels (kernels and copies; the least overhead), default (and the event "
                  "records, waits and synchronizations that give the DAG its edges), full (and every host API call, for "
                  "export)")
      ->check(CLI::IsMember({"kernels", "default", "full"}))
      ->capture_default_str();
  cmd->add_flag("--html", o->html, "also write OUT/report.html (rocm-perf report)");
  cmd->add_flag("--counters", o->counters, "a counter pass after the trace (NVIDIA: ncu), stored in the first run's trace");
  cmd->add_flag("--roofline", o->roofline,
                "counter passes for the roofline of every kernel (NVIDIA: one ncu pass, limited by --kernel and "
                "--roofline-launches; AMD: rocprofv3 --pmc, one pass per counter group)");
  cmd->add_flag("--deep", o->deep,
                "stall reasons, instruction mix and IPC of the dominant kernel (NVIDIA: from the ncu pass, limited by "
                "--kernel and --roofline-launches; AMD: a rocprofv3 --att thread trace of it on --att-target-cu)");
  cmd->add_option("--att-target-cu", o->att_target_cu, "AMD --deep: the compute unit whose waves the thread trace records")
      ->check(CLI::Range(0, 1023))
      ->capture_default_str();
  cmd->add_option("--roofline-launches", o->roofline_launches, "profile at most this many kernel launches in the counter pass")
      ->check(CLI::Range(1, 100'000'000));
  cmd->add_option("--metrics", o->metrics, "the counter pass's metrics (default: time, cycles, DRAM bytes, FP ops, occupancy)")
      ->delimiter(',');
  add_analysis_options(*cmd, o->analyses);
  cmd->add_option("command", o->command, "the program and its arguments (or give them after --)");
  return [o, program]() -> int {
    log::set_debug(o->output.debug);
    StopSignals stop;  // Ctrl-C stops the program and leaves the earlier profile as it was
    if (!program.empty() && !o->command.empty()) {
      fail(Errc::bad_input, "give the program either before or after --, not both");
    }
    workflow::ProfileRequest request;
    request.run.command = program.empty() ? o->command : program;
    request.run.runs = o->runs;
    if (o->timeout > 0) request.run.timeout_seconds = o->timeout;
    request.run.debug = o->output.debug;
    request.run.quiet_app = o->quiet_app;
    request.run.trace_level = o->trace_level;
    request.run.app_stdout_to_stderr = o->output.json || o->output.quiet;
    request.out_dir = o->out_dir;
    request.backend = o->backend;
    request.no_rocprof = o->no_rocprof;
    if (!o->kernel.empty()) request.kernel_regex = o->kernel;
    request.counters = o->counters;
    request.roofline = o->roofline;
    request.deep = o->deep;
    request.att_target_cu = o->att_target_cu;
    request.roofline_launches = o->roofline_launches;
    request.metrics = o->metrics;
    request.analyses = o->analyses.request();
    workflow::Control control;
    const auto r = workflow::run_profile(request, control);
    if (r.analysis) log_analysis_warnings(*r.analysis);
    if (o->html) {
      workflow::run_report({request.out_dir, request.out_dir / "report.html", {}, {}}, control);
    }
    return render_profile(r.summary, r.profile, o->output, r.analysis ? workflow::analysis_text(*r.analysis, o->output.names) : "");
  };
}

}  // namespace rpl::cli
