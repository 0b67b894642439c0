#include "optimize_session.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/optimize/builder.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/source_edits.hpp>
#include <rpl/report/json_documents.hpp>

#include <rpl/workflow/analyze.hpp>
#include <rpl/workflow/isolate.hpp>
#include <rpl/workflow/profile_folder.hpp>

#include "program_output.hpp"

namespace rpl::workflow {
namespace optimize_steps {

std::string base_name(const std::string& demangled) {
  int depth = 0;
  size_t end = demangled.size();
  for (size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == '(' && depth == 0) {
      end = i;
      break;
    }
  }
  std::string head = demangled.substr(0, end);
  if (!head.empty() && head.back() == '>') {  // template arguments
    depth = 0;
    for (size_t i = head.size(); i-- > 0;) {
      if (head[i] == '>') ++depth;
      if (head[i] == '<' && --depth == 0) {
        head.resize(i);
        break;
      }
    }
  }
  const size_t space = head.rfind(' '), colons = head.rfind("::");
  size_t start = 0;
  if (space != std::string::npos) start = space + 1;
  if (colons != std::string::npos && colons + 2 > start) start = colons + 2;
  return head.substr(start);
}

std::vector<std::string> with_binary(const std::vector<std::string>& program, const fs::path& binary) {
  std::vector<std::string> out;
  for (std::string arg : program) {
    for (size_t at; (at = arg.find("{BINARY}")) != std::string::npos;) arg.replace(at, 8, binary.string());
    out.push_back(std::move(arg));
  }
  return out;
}

Session::Session(const OptimizeRequest& o, Control& control) : o_(o), control_(control), seams_(with_real_seams(o)) {}

// The caller's token, or Ctrl-C where the caller left the token to the signals.
bool Session::cancelled() const { return control_.cancelled() || stop_requested(); }

std::vector<optimize::BuiltVariant> Session::build_all(const std::vector<std::pair<std::string, fs::path>>& variants) const {
  return seams_.build(variants);
}

std::optional<std::string> Session::code_object(const fs::path& binary) const {
  return seams_.code_object(binary, out_.architecture, out_.mangled_name);
}

void Session::check_inputs() {
  if (o_.apply && (access(o_.source.c_str(), W_OK) != 0 || access(fs::absolute(o_.source).parent_path().c_str(), W_OK) != 0)) {
    fail(Errc::bad_input, "--apply: {} cannot be written here (read-only file or folder); nothing was run", o_.source.string());
  }
  source_ = optimize::parse_kernel_file(o_.source);
  if (source_.kernels.empty()) {
    fail(Errc::bad_input, "{}: defines no __global__ kernel; give the file that defines the kernel to optimize", o_.source.string());
  }
  // A parameter allowed to go unread must be one: a misspelt name would allow nothing.
  std::vector<std::string> parameters;
  for (const auto& k : source_.kernels) {
    for (const auto& p : k.parameters) {
      if (!p.name.empty() && std::find(parameters.begin(), parameters.end(), p.name) == parameters.end()) parameters.push_back(p.name);
    }
  }
  for (const auto& name : o_.allow_unused_params) {
    if (std::find(parameters.begin(), parameters.end(), name) != parameters.end()) continue;
    fail(Errc::bad_input, "--allow-unused-param {}: no kernel in {} has a parameter of that name (they have {})", name,
         o_.source.string(), parameters.empty() ? "none" : fmt::format("{}", fmt::join(parameters, ", ")));
  }
  bool names_binary = false;
  for (const auto& a : o_.program) names_binary |= a.find("{BINARY}") != std::string::npos;
  if (o_.program.empty()) fail(Errc::bad_input, "give the program to run after --, with {{BINARY}} where the built binary goes");
  if (!names_binary) {
    fail(Errc::bad_input, "the program after -- does not name {{BINARY}}: each variant runs as the binary its build made");
  }
  if (!o_.kernel_regex.empty()) {
    try {
      std::regex check(o_.kernel_regex);
    } catch (const std::regex_error& e) {
      fail(Errc::bad_input, "--kernel '{}': not a regular expression ({})", o_.kernel_regex, e.what());
    }
  }
  for (const auto& f : o_.candidate_files) read_file(f);  // Error(bad_input) naming an unreadable one
  if (!o_.llm.url.empty()) {
    if (const auto why = optimize::unreachable(o_.llm)) fail(Errc::bad_input, "--llm-url: the server cannot be reached: {}", *why);
  }
}

void Session::build_baseline() {
  say(EventKind::stage_started, "build", "building the original twice (a deterministic rebuild)");
  const auto built = build_all({{source_.text, work_ / "baseline" / "a"}, {source_.text, work_ / "baseline" / "b"}});
  if (!built[0].ok) {
    fail(Errc::bad_input, "the original does not build with --build: {}; its output: {}", built[0].failure,
         (work_ / "baseline" / "a" / "build.log").string());
  }
  out_.baseline_build_seconds = built[0].seconds;
  std::string difference;
  if (!built[1].ok || !optimize::same_machine_code(built[0].binary, built[1].binary, difference)) {
    std::string why = built[1].ok ? difference : built[1].failure;
    const auto macros = optimize::time_dependent_macros(source_.text);
    std::string named;
    for (const auto& m : macros) named += (named.empty() ? "" : ", ") + m;
    fail(Errc::bad_input, "two builds of the untouched source differ ({}){}: a candidate could not be told from the build's "
                          "own variation; make the build deterministic", why,
         named.empty() ? "; look for a flag or macro that embeds a time, a path or a random seed" : "; the source uses " + named);
  }
  baseline_binary_ = built[0].binary;
}

ProgramProfile Session::profile(const fs::path& binary, const fs::path& folder) {
  backends::RunOptions run;
  run.command = with_binary(o_.program, binary);
  run.runs = o_.runs;
  run.timeout_seconds = o_.timeout;
  run.quiet_app = true;
  run.app_stdout_to_stderr = true;
  ProgramProfile p;
  p.folder = folder;
  p.trace = seams_.trace(out_.vendor, run, folder / ".rocpd_profile");
  if (p.trace.dispatches.empty()) fail(Errc::run_failed, "{} ran, but no kernel dispatches were recorded", display_command(run.command));
  p.dag = analysis::analyze_dag(p.trace);
  for (const auto& process : p.dag.processes) p.critical_path_ms.push_back(static_cast<double>(process.critical_path_ns) / 1e6);
  return p;
}

// profile.json, dag.json and analysis.json of the chosen kernel: what the prompt tells a model.
void Session::write_documents(const ProgramProfile& p) {
  analysis::AnalyzeOptions options;
  options.kernel_regex = analysis::exact_name_regex(out_.kernel_name);
  Control quiet;  // its warnings are told below, once each
  const auto analyzed = analyze_trace(p.trace, analysis::summarize_trace(p.trace, options), {}, quiet);
  for (const auto& w : analyzed.warnings) {
    out_.warnings.push_back("the original's profile: " + w);
    control_.warning("profile", out_.warnings.back());
  }
  write_analysis_documents(p.trace, analyzed, p.folder);
}

void Session::choose_kernel(const ProgramProfile& p) {
  std::map<std::string, std::string> mangled_of;
  for (const auto& g : analysis::group_by_kernel(p.trace)) mangled_of[g.display_name] = g.mangled_name;
  std::optional<std::regex> pick;
  if (!o_.kernel_regex.empty()) pick.emplace(o_.kernel_regex);
  std::string ran;
  for (const auto& k : p.dag.kernels) {
    if (k.is_copy) continue;
    ran += (ran.empty() ? "" : ", ") + k.name;
    const auto* def = source_.find(base_name(k.name));
    const std::string& mangled = mangled_of[k.name];
    if (!def || (pick && !std::regex_search(k.name, *pick) && !std::regex_search(mangled, *pick))) continue;
    kernel_ = def;
    out_.kernel_name = k.name;
    out_.mangled_name = mangled;
    out_.kernel_line = def->line;
    out_.critical_path_share = k.critical_path_score;
    if (k.critical_path_score < 0.999) out_.amdahl_ceiling = 1 / (1 - k.critical_path_score);
    break;
  }
  if (!kernel_) {
    std::string defined;
    for (const auto& k : source_.kernels) defined += (defined.empty() ? "" : ", ") + k.name;
    fail(Errc::bad_input, "none of the kernels the program ran{} is defined in {} (it defines {}; it ran {}): a kernel of a "
                          "library such as cuBLAS cannot be rewritten here",
         o_.kernel_regex.empty() ? "" : " that --kernel matches", o_.source.string(), defined, ran.size() > 600 ? ran.substr(0, 600) + "..." : ran);
  }
  say(EventKind::stage_finished, "kernel",
      fmt::format("{}: {:.1f}% of the critical path; Amdahl's ceiling for the program {}", out_.kernel_name,
                  out_.critical_path_share * 100, out_.amdahl_ceiling ? fmt::format("{:.2f}x", *out_.amdahl_ceiling) : "unbounded"));
}

void Session::capture_oracles() {
  // The dispatch asked for, and a later one of the same run or the same one of --check-args.
  std::vector<std::pair<std::vector<std::string>, uint64_t>> wanted = {{with_binary(o_.program, baseline_binary_), o_.dispatch}};
  if (!o_.check_args.empty()) {
    wanted.emplace_back(with_binary(o_.check_args, baseline_binary_), o_.dispatch);
  } else {
    wanted.emplace_back(wanted[0].first, o_.dispatch + 1);
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    IsolateRequest request;
    request.program = wanted[i].first;
    request.kernel_regex = analysis::exact_name_regex(out_.mangled_name);
    request.dispatch = wanted[i].second;
    request.out = out_dir_ / "oracle" / fmt::format("{}", i + 1);
    request.backend = vendor_backend();
    request.timeout = o_.timeout;
    request.quiet_app = true;
    request.app_stdout_to_stderr = true;
    request.capture = seams_.capture;
    try {
      Control quiet;
      run_isolate(request, quiet);
    } catch (const Error& e) {
      if (i == 0 || e.code() != Errc::bad_input) throw;
      out_.warnings.push_back(fmt::format("one oracle only: no second dispatch to check against ({})", e.what()));
      break;
    }
    snapshots_.push_back(isolate::read_snapshot(request.out));
    const auto& snapshot = snapshots_.back();
    out_.device = snapshot.dispatch.device_name;
    out_.architecture = snapshot.dispatch.architecture;
    if (baseline_code_.empty()) {
      auto code = code_object(baseline_binary_);
      if (!code) {
        fail(Errc::bad_input, "the build holds no {} code object that defines {}: build for the GPU's architecture (not PTX "
                              "alone), e.g. -arch=native", out_.architecture, out_.mangled_name);
      }
      baseline_code_ = std::move(*code);
    }
    OracleRecord record;
    record.dispatch = wanted[i].second;
    record.command = display_command(wanted[i].first);
    record.dir = request.out;
    auto search = optimize::find_written_bytes(snapshot, baseline_code_, work_ / "oracle", replayer());
    record.written = std::move(search.bytes);
    record.notes = std::move(search.notes);
    record.poisoned_bytes = optimize::byte_count(record.written);
    // The original itself must pass its own oracle, with either poison, as every candidate will be asked to.
    for (const unsigned char pattern : {optimize::kPoisonByte, optimize::kSecondPoisonByte}) {
      const auto own = optimize::check_on_oracle(snapshot, baseline_code_, record.written, work_ / "oracle" / "own", replayer(),
                                                 o_.compare, pattern);
      if (!own.passed) {
        fail(Errc::run_failed, "the original kernel does not reproduce its own captured dispatch {} on replay, its written bytes "
                               "filled with 0x{:02X} ({}): it is not deterministic; allow reassociation with --dtype and --rtol/--atol",
             record.dispatch, pattern, own.failure);
      }
    }
    say(EventKind::stage_finished, "oracle",
        fmt::format("oracle {}: dispatch {} captured, {} written bytes poisoned before each candidate", i + 1, record.dispatch,
                    record.poisoned_bytes));
    const fs::path timing = work_ / "oracle" / fmt::format("timing_{}", i + 1);
    optimize::derive_snapshot(snapshot, timing, baseline_code_, {});
    timing_dirs_.push_back(timing);
    out_.oracles.push_back(std::move(record));
  }
}

void Session::finish() {
  for (size_t i = 0; i < out_.candidates.size(); ++i) {
    const auto& c = out_.candidates[i];
    if (c.verdict == "accepted" && (!out_.best || c.replay->after_mean < out_.candidates[*out_.best].replay->after_mean)) out_.best = i;
  }
  if (!out_.best) return;
  const auto& best = out_.candidates[*out_.best];
  const std::string file = o_.source.filename().string();
  create_output_folder(out_dir_ / "best");
  write_output_file(out_dir_ / "best" / file, best.text);
  write_output_file(out_dir_ / "best.patch", optimize::unified_diff(source_.text, best.text, file));
  if (o_.apply && !out_.interrupted) {  // a run stopped by Ctrl-C writes nothing of the user's
    write_output_file(o_.source, best.text);
    out_.applied = true;
  }
}

OptimizeResult Session::run() {
  const auto started = std::chrono::steady_clock::now();
  check_inputs();
  out_dir_ = fs::absolute(o_.out);
  work_ = out_dir_ / "work";
  std::error_code ec;
  fs::remove_all(work_, ec);
  create_output_folder(work_);
  build_baseline();
  out_.vendor = o_.backend == "auto" ? (seams_.amd_profiler_found() ? "amd" : "nvidia") : (o_.backend == "rocm" ? "amd" : "nvidia");
  say(EventKind::stage_started, "profile", fmt::format("profiling the original ({} runs)", o_.runs));
  const auto baseline = profile(baseline_binary_, work_ / "baseline" / "profile");
  choose_kernel(baseline);
  write_documents(baseline);
  baseline_times_ = analysis::kernel_times(baseline.trace);
  for (const auto& k : baseline_times_.kernels) {
    if (k.name == out_.kernel_name) out_.baseline_kernel_ms = k.run_ms;
  }
  out_.baseline_critical_path_ms = baseline.critical_path_ms;
  if (!o_.check_output.empty()) {
    baseline_output_ = matching_output_lines(baseline.folder / ".rocpd_profile" / "run1.log", o_.check_output);
  }
  capture_oracles();
  std::vector<bool> pointers;
  for (const auto& p : kernel_->parameters) pointers.push_back(p.pointer);
  out_.oracle_shapes = optimize::input_shapes(snapshots_, pointers);
  sanitize_original();
  out_.baseline_resources = inspect_kernel(baseline_binary_);
  propose_initial();
  llm_rounds();
  // The survivors, fastest first, each confirmed in the whole program.
  std::vector<CandidateRecord*> survivors;
  for (auto& c : out_.candidates) {
    if (c.stage.empty()) survivors.push_back(&c);
  }
  std::sort(survivors.begin(), survivors.end(), [](auto* a, auto* b) { return a->replay->after_mean < b->replay->after_mean; });
  // Their second builds at once (a build can take minutes), then each program profiled in turn.
  std::vector<std::pair<std::string, fs::path>> again;
  for (auto* c : survivors) again.emplace_back(c->text, c->dir / "again");
  const auto rebuilt = cancelled() ? std::vector<optimize::BuiltVariant>{} : build_all(again);
  for (size_t i = 0; i < survivors.size() && !cancelled(); ++i) {
    say(EventKind::stage_started, "confirm", fmt::format("[{}] confirming in the program ({} runs)", survivors[i]->id, o_.runs));
    confirm(*survivors[i], rebuilt[i]);
    report(*survivors[i]);
  }
  out_.interrupted = cancelled();
  finish();
  out_.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out_;
}

}  // namespace optimize_steps

std::map<std::string, int> rejections_by_stage(const OptimizeResult& r) {
  std::map<std::string, int> out;
  for (const auto& c : r.candidates) {
    if (c.verdict != "accepted") ++out[c.stage];
  }
  return out;
}

OptimizeResult run_optimize(const OptimizeRequest& request, Control& control) {
  optimize_steps::Session session(request, control);
  return session.run();
}

}  // namespace rpl::workflow
