// rocm-perf profile [opts] -- CMD [ARGS...]
#include <iostream>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/ncu_source.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/backends/wallclock.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/log.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/hal/ceilings.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/text.hpp>
#include <rpl/trace/rocpd_reader.hpp>
#include <rpl/workflow/analyze.hpp>
#include <rpl/workflow/report.hpp>

#include "analysis_options.hpp"
#include "counter_passes.hpp"
#include "commands.hpp"
#include "render.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
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
    backends::RunOptions run;
    run.command = program.empty() ? o->command : program;
    if (!program.empty() && !o->command.empty()) {
      fail(Errc::bad_input, "give the program either before or after --, not both");
    }
    run.runs = o->runs;
    if (o->timeout > 0) run.timeout_seconds = o->timeout;
    run.debug = o->output.debug;
    run.quiet_app = o->quiet_app;
    run.trace_level = o->trace_level;
    run.app_stdout_to_stderr = o->output.json || o->output.quiet;
    backends::check_program_exists(run);
    if (!o->analyses.ceilings_file.empty()) {
      hal::Ceilings check;
      hal::apply_ceilings_file(check, o->analyses.ceilings_file);  // a bad file fails before anything runs
    }

    const fs::path out_dir = o->out_dir;
    create_output_folder(out_dir);
    std::error_code ec;

    analysis::ProfileSummary summary;
    std::string closing_text;
    std::optional<workflow::TraceAnalysis> analyzed;
    const auto trace_dir = out_dir / ".rocpd_profile";
    if (o->no_rocprof) {
      summary = analysis::summarize_wallclock(backends::time_whole_process(run, trace_dir));
      // An earlier traced profile's analyses would not describe this one.
      for (const char* stale : {"dag.json", "roofline.json", "analysis.json"}) fs::remove(out_dir / stale, ec);
    } else {
      const std::string backend = o->backend == "auto" ? backends::choose_trace_backend() : o->backend;
      if (o->counters && backend != "cuda") {
        fail(Errc::bad_input, "--counters and --metrics are the NVIDIA backend's (ncu); on AMD, --roofline chooses the "
                              "counters");
      }
      auto dbs = backend == "cuda" ? backends::trace_with_cupti(run, trace_dir) : backends::trace_with_rocprofv3(run, trace_dir);
      CounterPassOptions passes{o->counters, o->roofline, o->deep, o->metrics, o->kernel, o->roofline_launches};
      run_counter_passes(backend, run, dbs, passes);
      auto trace = trace::read_rocpd(dbs);
      if (trace.dispatches.empty()) {
        fail(Errc::run_failed, "{} ran, but no kernel dispatches were recorded (its traces: {})",
             display_command(run.command), trace_dir.string());
      }
      analysis::AnalyzeOptions options;
      if (!o->kernel.empty()) options.kernel_regex = o->kernel;
      summary = analysis::summarize_trace(trace, options);
      workflow::AnalysisOptions analyses = o->analyses.request();
      if (o->deep && summary.kernel) {
        // The dominant kernel once more: AMD's thread trace, or ncu's per-instruction stall samples.
        const std::string regex = o->kernel.empty() ? analysis::exact_name_regex(summary.kernel->name) : o->kernel;
        if (backend == "rocm") {
          analyses.thread_trace_dir = backends::collect_thread_trace(run, regex, o->att_target_cu, trace_dir / "att");
        } else {
          // ncu matches the user's --kernel against function names, and ours against the mangled one.
          const backends::NcuKernelFilter filter{o->kernel.empty() ? analysis::exact_name_regex(summary.kernel->mangled_name) : o->kernel,
                                                 o->kernel.empty()};
          // The hottest lines are a part of --deep that a program may not give (no SASS view): the stall
          // pass has run, so the profile goes on without them.
          try {
            analyses.ncu_source_file = backends::collect_ncu_source(run, filter, trace_dir / "ncu_source");
          } catch (const Error& e) {
            if (e.code() == Errc::missing_tool) throw;
            log::warning(fmt::format("--deep: no hottest lines or instructions: {}", e.what()));
          }
        }
      }
      workflow::Control control;
      analyzed = workflow::analyze_trace(trace, summary, analyses, control);
      log_analysis_warnings(*analyzed);
      workflow::write_analysis_documents(trace, *analyzed, out_dir);
      closing_text = workflow::analysis_text(*analyzed, o->output.names);
    }
    const auto document = workflow::profile_document(summary, analyzed ? &*analyzed : nullptr);
    if (!analyzed) write_output_file(out_dir / "profile.json", report::dump(document));
    if (o->html) {
      workflow::Control control;
      workflow::run_report({out_dir, out_dir / "report.html", {}, {}}, control);
    }
    return render_profile(summary, document, o->output, closing_text);
  };
}

}  // namespace rpl::cli
