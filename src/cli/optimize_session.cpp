#include "optimize_session.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include <rpl/analysis/dag.hpp>
#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/backends/isolate_runs.hpp>
#include <rpl/backends/rocprofv3.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/optimize/builder.hpp>
#include <rpl/optimize/guards.hpp>
#include <rpl/optimize/kernel_source.hpp>
#include <rpl/optimize/prompt.hpp>
#include <rpl/optimize/source_edits.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/trace/rocpd_reader.hpp>

#include "analysis_outputs.hpp"
#include "isolate_dispatch.hpp"
#include "profile_folder.hpp"
#include "program_output.hpp"

namespace rpl::cli {
namespace fs = std::filesystem;
namespace {

// The function's own name in a demangled kernel name: "void ns::k<4>(float*, int)" -> "k".
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

// One traced profile of the program built into binary.
struct ProgramProfile {
  trace::Trace trace;
  analysis::DagResult dag;
  std::vector<double> critical_path_ms;  // each run's
  fs::path folder;
};

class Session {
 public:
  Session(const OptimizeOptions& o, const std::function<void(const std::string&)>& progress)
      : o_(o), progress_(progress), builder_(o.build, fs::absolute(o.source), o.build_timeout) {}

  OptimizeOutcome run();

 private:
  void check_inputs();
  void build_baseline();
  ProgramProfile profile(const fs::path& binary, const fs::path& folder);
  void write_documents(const ProgramProfile& p);
  void choose_kernel(const ProgramProfile& p);
  void capture_oracles();
  void propose_initial();
  void evaluate(std::vector<CandidateRecord*> batch);
  bool check_code(CandidateRecord& c, const fs::path& binary);
  std::optional<analysis::InspectedKernel> inspect_kernel(const fs::path& binary) const;
  void time_replays(CandidateRecord& c);
  void llm_rounds();
  void confirm(CandidateRecord& c);
  void finish();

  CandidateRecord& add_candidate(std::string kind, std::string origin, std::string text);
  void reject(CandidateRecord& c, std::string stage, std::string reason);
  void report(const CandidateRecord& c);
  optimize::Replayer replayer() const;
  double time_replay(const fs::path& snapshot) const;
  std::string vendor_backend() const { return out_.vendor == "amd" ? "rocm" : "cuda"; }

  const OptimizeOptions& o_;
  const std::function<void(const std::string&)>& progress_;
  optimize::VariantBuilder builder_;
  OptimizeOutcome out_;
  fs::path out_dir_, work_;
  optimize::KernelSource source_;
  const optimize::KernelDefinition* kernel_ = nullptr;
  fs::path baseline_binary_;
  std::string baseline_code_;   // the kernel's code object in the baseline build
  std::vector<isolate::Snapshot> snapshots_;
  analysis::ProfileTimes baseline_times_;
  std::string baseline_output_;  // the first run's lines that --check-output picks
  std::set<std::string> seen_texts_;
  std::vector<fs::path> timing_dirs_;  // per oracle: the snapshot with the baseline's code object
};

void Session::check_inputs() {
  if (o_.apply && (access(o_.source.c_str(), W_OK) != 0 || access(fs::absolute(o_.source).parent_path().c_str(), W_OK) != 0)) {
    fail(Errc::bad_input, "--apply: {} cannot be written here (read-only file or folder); nothing was run", o_.source.string());
  }
  source_ = optimize::parse_kernel_file(o_.source);
  if (source_.kernels.empty()) {
    fail(Errc::bad_input, "{}: defines no __global__ kernel; give the file that defines the kernel to optimize", o_.source.string());
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
  progress_("building the original twice (a deterministic rebuild)");
  const auto built = builder_.build_all({{source_.text, work_ / "baseline" / "a"}, {source_.text, work_ / "baseline" / "b"}}, o_.jobs);
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
  const fs::path trace_dir = folder / ".rocpd_profile";
  const auto dbs = vendor_backend() == "rocm" ? backends::trace_with_rocprofv3(run, trace_dir) : backends::trace_with_cupti(run, trace_dir);
  p.trace = trace::read_rocpd(dbs);
  if (p.trace.dispatches.empty()) fail(Errc::run_failed, "{} ran, but no kernel dispatches were recorded", display_command(run.command));
  p.dag = analysis::analyze_dag(p.trace);
  for (const auto& process : p.dag.processes) p.critical_path_ms.push_back(static_cast<double>(process.critical_path_ns) / 1e6);
  return p;
}

// profile.json, dag.json and analysis.json of the chosen kernel: what the prompt tells a model.
void Session::write_documents(const ProgramProfile& p) {
  analysis::AnalyzeOptions options;
  options.kernel_regex = analysis::exact_name_regex(out_.kernel_name);
  const auto summary = analysis::summarize_trace(p.trace, options);
  const auto roofline = roofline_for(p.trace, summary, {});
  write_analysis_outputs(p.trace, summary, roofline, p.folder, {});
  auto doc = report::profile_json(summary);
  doc["roofline"] = roofline.dominant;
  write_output_file(p.folder / "profile.json", report::dump(doc));
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
  progress_(fmt::format("{}: {:.1f}% of the critical path; Amdahl's ceiling for the program {}", out_.kernel_name,
                        out_.critical_path_share * 100, out_.amdahl_ceiling ? fmt::format("{:.2f}x", *out_.amdahl_ceiling) : "unbounded"));
}

optimize::Replayer Session::replayer() const {
  const std::string vendor = out_.vendor;
  const double timeout = o_.timeout;
  return [vendor, timeout](const fs::path& snapshot, const fs::path& dump) {
    create_output_folder(dump);
    backends::ReplayRequest r;
    r.mode = "full-vm";
    r.capture_dir = snapshot;
    r.dump_dir = dump;
    r.timeout_seconds = timeout;
    backends::replay_snapshot(vendor, r);
  };
}

double Session::time_replay(const fs::path& snapshot) const {
  backends::ReplayRequest r;
  r.mode = "full-vm";
  r.capture_dir = snapshot;
  r.iterations = o_.launches;
  r.timeout_seconds = o_.timeout;
  const auto doc = nlohmann::json::parse(backends::replay_snapshot(out_.vendor, r).document);
  return doc.at("gpu_time_ms").at("median").get<double>();
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
    try {
      isolate_dispatch(request);
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
      auto code = optimize::kernel_code_object(baseline_binary_, out_.architecture, out_.mangled_name);
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
    // The original itself must pass its own oracle, as every candidate will be asked to.
    const auto own = optimize::check_on_oracle(snapshot, baseline_code_, record.written, work_ / "oracle" / "own", replayer(), o_.compare);
    if (!own.passed) {
      fail(Errc::run_failed, "the original kernel does not reproduce its own captured dispatch {} on replay ({}): it is not "
                             "deterministic; allow reassociation with --dtype and --rtol/--atol", record.dispatch, own.failure);
    }
    progress_(fmt::format("oracle {}: dispatch {} captured, {} written bytes poisoned before each candidate", i + 1,
                          record.dispatch, record.poisoned_bytes));
    const fs::path timing = work_ / "oracle" / fmt::format("timing_{}", i + 1);
    optimize::derive_snapshot(snapshot, timing, baseline_code_, {});
    timing_dirs_.push_back(timing);
    out_.oracles.push_back(std::move(record));
  }
}

CandidateRecord& Session::add_candidate(std::string kind, std::string origin, std::string text) {
  CandidateRecord c;
  c.id = static_cast<int>(out_.candidates.size()) + 1;
  c.kind = std::move(kind);
  c.origin = std::move(origin);
  c.text = std::move(text);
  c.dir = work_ / fmt::format("candidate_{}", c.id);
  out_.candidates.push_back(std::move(c));
  return out_.candidates.back();
}

void Session::reject(CandidateRecord& c, std::string stage, std::string reason) {
  c.verdict = "rejected";
  c.stage = std::move(stage);
  c.reason = std::move(reason);
}

void Session::report(const CandidateRecord& c) {
  std::string line = fmt::format("[{}] {}: ", c.id, c.origin);
  if (c.stage.empty() && c.replay) {
    line += fmt::format("{:.3f} ms -> {:.3f} ms on replay ({:.2f}x)", c.replay->before_mean, c.replay->after_mean,
                        c.replay->before_mean / c.replay->after_mean);
    if (c.verdict == "accepted") line += ", accepted";
  } else {
    line += fmt::format("rejected ({}: {})", c.stage, c.reason);
  }
  progress_(line);
}

void Session::propose_initial() {
  std::vector<CandidateRecord*> batch;
  if (o_.unroll) {
    const auto proposals = optimize::unroll_variants(source_, *kernel_, o_.unroll_factors);
    for (const auto& r : proposals.refused) out_.refused_loops.push_back(fmt::format("line {}: {}", r.line, r.reason));
    for (const auto& v : proposals.variants) {
      auto& c = add_candidate("unroll", v.origin, v.text);
      c.loop_line = v.loop_line;
      c.factor = v.factor;
      batch.push_back(&c);
    }
  }
  for (const auto& f : o_.candidate_files) {
    const std::string content = read_file(f);
    std::string why;
    // A file holds the bare definition, or an answer with it in a fenced block.
    const auto block = optimize::fenced_code_block(content, kernel_->name, why);
    auto& c = add_candidate("file", "candidate file " + f.string(), optimize::splice_definition(source_, *kernel_, block ? *block : content));
    c.file = f.string();
    batch.push_back(&c);
  }
  evaluate(batch);
}

// The kernel's registers, spills and occupancy in binary's code object, at the captured block size.
std::optional<analysis::InspectedKernel> Session::inspect_kernel(const fs::path& binary) const {
  analysis::InspectOptions io;
  io.arch = out_.architecture;
  io.kernel_regex = analysis::exact_name_regex(out_.mangled_name);
  const auto& d = snapshots_.front().dispatch;
  io.block = static_cast<int>(d.block[0] * d.block[1] * d.block[2]);
  auto report = analysis::inspect_binary(binary, io);
  if (report.kernels.empty()) return std::nullopt;
  return std::move(report.kernels.front());
}

bool Session::check_code(CandidateRecord& c, const fs::path& binary) {
  auto code = optimize::kernel_code_object(binary, out_.architecture, out_.mangled_name);
  if (!code) {
    reject(c, "code_object", fmt::format("the build holds no {} code object that defines {}", out_.architecture, out_.mangled_name));
    return false;
  }
  try {
    c.resources = inspect_kernel(binary);
  } catch (const Error& e) {
    reject(c, "code_object", e.what());
    return false;
  }
  const auto& base = out_.baseline_resources;
  if (c.resources && base) {
    const auto spills = [](const analysis::InspectedKernel& k) { return k.resources.scratch_bytes + k.vgpr_spills + k.sgpr_spills; };
    if (spills(*c.resources) > 0 && spills(*base) == 0) {
      reject(c, "spills", fmt::format("it spills ({} bytes of local memory per thread; the original has none)", c.resources->resources.scratch_bytes));
      return false;
    }
    if (c.resources->occupancy && base->occupancy && c.resources->occupancy->theoretical < base->occupancy->theoretical - 1e-9) {
      reject(c, "occupancy", fmt::format("theoretical occupancy {:.0f}% < the original's {:.0f}% ({} registers per thread, limited by {})",
                                         c.resources->occupancy->theoretical * 100, base->occupancy->theoretical * 100,
                                         c.resources->resources.vgpr_per_thread, c.resources->occupancy->limiter));
      return false;
    }
  }
  for (size_t i = 0; i < snapshots_.size(); ++i) {
    const auto v = optimize::check_on_oracle(snapshots_[i], *code, out_.oracles[i].written, c.dir / "check", replayer(), o_.compare);
    std::error_code ec;
    fs::remove_all(c.dir / "check", ec);
    if (!v.passed) {
      c.correct = false;
      reject(c, "correctness", fmt::format("oracle {} (dispatch {}): {}", i + 1, out_.oracles[i].dispatch, v.failure));
      return false;
    }
  }
  c.correct = true;
  // The replays that time it run the candidate's code on the first oracle, unpoisoned.
  optimize::derive_snapshot(snapshots_.front(), c.dir / "timing", *code, {});
  return true;
}

void Session::time_replays(CandidateRecord& c) {
  for (int i = 0; i < o_.pairs; ++i) {
    c.original_ms.push_back(time_replay(timing_dirs_.front()));
    c.candidate_ms.push_back(time_replay(c.dir / "timing"));
  }
  c.replay = analysis::compare_samples(c.original_ms, c.candidate_ms);
  if (c.replay->verdict != analysis::Verdict::faster) {
    reject(c, "speed", fmt::format("{} on replay ({:+.1f}%{})", c.replay->verdict == analysis::Verdict::slower ? "slower" : "not faster beyond noise",
                                   c.replay->change_pct, c.replay->noise_pct ? fmt::format(", noise ±{:.1f}%", *c.replay->noise_pct) : ""));
  }
}

void Session::evaluate(std::vector<CandidateRecord*> batch) {
  std::vector<CandidateRecord*> to_build;
  for (auto* c : batch) {
    if (!seen_texts_.insert(c->text).second) {
      reject(*c, "duplicate", "the same source as an earlier candidate");
      report(*c);
      continue;
    }
    try {
      const auto parsed = optimize::parse_kernel_source(o_.source, c->text);
      const auto* def = parsed.find(kernel_->name);
      if (!def) {
        reject(*c, "signature", fmt::format("it defines no kernel named {}", kernel_->name));
      } else {
        c->definition = c->text.substr(def->definition.begin, def->definition.end - def->definition.begin);
        const auto verdict = optimize::check_source_guards(source_, *kernel_, parsed);
        if (!verdict.passed()) reject(*c, verdict.guard, verdict.reason);
      }
    } catch (const Error& e) {
      reject(*c, "parse", e.what());
    }
    if (c->stage.empty()) {
      to_build.push_back(c);
    } else {
      report(*c);
    }
  }
  std::vector<std::pair<std::string, fs::path>> variants;
  for (auto* c : to_build) variants.emplace_back(c->text, c->dir);
  const auto built = builder_.build_all(variants, o_.jobs);
  for (size_t i = 0; i < to_build.size(); ++i) {
    auto& c = *to_build[i];
    c.build_seconds = built[i].seconds;
    if (!built[i].ok) {
      c.build_log = built[i].log;
      reject(c, "compile", built[i].failure);
    } else if (check_code(c, built[i].binary)) {
      time_replays(c);
    }
    report(c);
  }
}

void Session::llm_rounds() {
  if (o_.llm.url.empty()) return;
  const fs::path llm_dir = out_dir_ / "llm";
  create_output_folder(llm_dir);
  const auto facts = optimize::measured_facts(optional_json_document(work_ / "baseline" / "profile" / "profile.json"),
                                              optional_json_document(work_ / "baseline" / "profile" / "analysis.json"));
  auto save = [&](const std::string& name, const std::vector<optimize::ChatMessage>& messages, const optimize::ChatReply& reply) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::array();
    for (const auto& m : messages) doc.push_back({{"role", m.role}, {"content", m.content}});
    write_output_file(llm_dir / (name + ".request.json"), doc.dump(2) + "\n");
    std::string answer = reply.ok() ? reply.content : "error: " + reply.error + "\n";
    for (const auto& a : reply.attempts) answer += "\n<!-- " + a + " -->";
    write_output_file(llm_dir / (name + ".answer.md"), answer + "\n");
  };
  for (int round = 1; round <= o_.llm_rounds; ++round) {
    // Each round refines the fastest correct candidate so far.
    const CandidateRecord* best = nullptr;
    for (const auto& c : out_.candidates) {
      if (c.stage.empty() && c.replay && (!best || c.replay->after_mean < best->replay->after_mean)) best = &c;
    }
    const std::string definition = best ? best->definition
                                        : source_.text.substr(kernel_->definition.begin, kernel_->definition.end - kernel_->definition.begin);
    auto messages = optimize::optimization_request(*kernel_, definition, facts);
    for (int attempt = 1; attempt <= 1 + o_.repair_attempts; ++attempt) {
      const std::string name = fmt::format("round{}_attempt{}", round, attempt);
      const auto reply = optimize::chat_completion(o_.llm, messages);
      save(name, messages, reply);
      const std::string origin = fmt::format("LLM round {}, attempt {}", round, attempt);
      if (!reply.ok()) {
        auto& c = add_candidate("llm", origin, "");
        c.round = round, c.attempt = attempt;
        reject(c, "answer", reply.error);
        report(c);
        break;
      }
      std::string why;
      const auto block = optimize::fenced_code_block(reply.content, kernel_->name, why);
      if (!block) {
        auto& c = add_candidate("llm", origin, "");
        c.round = round, c.attempt = attempt;
        reject(c, "answer", why);
        report(c);
        break;
      }
      auto& c = add_candidate("llm", origin, optimize::splice_definition(source_, *kernel_, *block));
      c.round = round, c.attempt = attempt;
      evaluate({&c});
      if (c.stage != "compile" || attempt > o_.repair_attempts) break;
      messages = optimize::repair_request(std::move(messages), reply.content, c.build_log);
    }
  }
}

void Session::confirm(CandidateRecord& c) {
  // The rebuilt program must be deterministic too, exit 0, print what it printed, and be faster.
  const auto again = builder_.build(c.text, c.dir / "again");
  std::string difference;
  if (!again.ok || !optimize::same_machine_code(c.dir / "variant", again.binary, difference)) {
    reject(c, "deterministic", again.ok ? "two builds differ: " + difference : again.failure);
    return;
  }
  ProgramProfile p;
  try {
    p = profile(c.dir / "variant", c.dir / "profile");
  } catch (const Error& e) {
    if (e.code() == Errc::missing_tool) throw;
    reject(c, "program", e.what());
    return;
  }
  if (!o_.check_output.empty()) {
    const auto got = matching_output_lines(p.folder / ".rocpd_profile" / "run1.log", o_.check_output);
    if (const auto why = output_difference(baseline_output_, got, o_.compare.rtol)) {
      reject(c, "program_output", *why);
      return;
    }
  }
  const auto changes = analysis::compare_kernel_times(baseline_times_, analysis::kernel_times(p.trace));
  for (const auto& k : changes) {
    if (k.name == out_.kernel_name) c.program_kernel = k;
  }
  c.program_critical_path = analysis::compare_samples(out_.baseline_critical_path_ms, p.critical_path_ms);
  if (!c.program_kernel || c.program_kernel->verdict != analysis::Verdict::faster) {
    const auto& k = c.program_kernel;
    reject(c, "program_speed", k ? fmt::format("the kernel is not faster in the program beyond noise ({:+.1f}%{})", k->change_pct,
                                               k->noise_pct ? fmt::format(", noise ±{:.1f}%", *k->noise_pct) : "")
                                 : "the kernel did not run in the program");
  } else if (c.program_critical_path->verdict == analysis::Verdict::slower) {
    reject(c, "program_speed", fmt::format("the program's critical path is longer ({:+.1f}%)", c.program_critical_path->change_pct));
  } else {
    c.verdict = "accepted";
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
  if (o_.apply) {
    write_output_file(o_.source, best.text);
    out_.applied = true;
  }
}

OptimizeOutcome Session::run() {
  const auto started = std::chrono::steady_clock::now();
  check_inputs();
  out_dir_ = fs::absolute(o_.out);
  work_ = out_dir_ / "work";
  std::error_code ec;
  fs::remove_all(work_, ec);
  create_output_folder(work_);
  build_baseline();
  out_.vendor = o_.backend == "auto" ? (backends::find_rocprofv3() ? "amd" : "nvidia") : (o_.backend == "rocm" ? "amd" : "nvidia");
  progress_(fmt::format("profiling the original ({} runs)", o_.runs));
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
  out_.baseline_resources = inspect_kernel(baseline_binary_);
  propose_initial();
  llm_rounds();
  // The survivors, fastest first, each confirmed in the whole program.
  std::vector<CandidateRecord*> survivors;
  for (auto& c : out_.candidates) {
    if (c.stage.empty()) survivors.push_back(&c);
  }
  std::sort(survivors.begin(), survivors.end(), [](auto* a, auto* b) { return a->replay->after_mean < b->replay->after_mean; });
  for (auto* c : survivors) {
    progress_(fmt::format("[{}] confirming in the program ({} runs)", c->id, o_.runs));
    confirm(*c);
    report(*c);
  }
  finish();
  out_.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out_;
}

}  // namespace

OptimizeOutcome run_optimization(const OptimizeOptions& options, const std::function<void(const std::string&)>& progress) {
  Session session(options, progress);
  return session.run();
}

}  // namespace rpl::cli
