#include "optimize_session.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rpl/analysis/kernel_selection.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/text.hpp>
#include <rpl/optimize/guards.hpp>
#include <rpl/optimize/prompt.hpp>
#include <rpl/optimize/rule_proposals.hpp>
#include <rpl/optimize/sanitizer.hpp>
#include <rpl/optimize/source_edits.hpp>

#include <rpl/workflow/profile_folder.hpp>

#include "program_output.hpp"

namespace rpl::workflow::optimize_steps {

optimize::Replayer Session::replayer() const {
  return [replay = seams_.replay, vendor = out_.vendor](const fs::path& snapshot, const fs::path& dump) { replay(vendor, snapshot, dump); };
}

optimize::SanitizedReplayer Session::sanitized_replayer(const fs::path& sanitizer) const {
  return [replay = seams_.sanitized_replay, sanitizer](const fs::path& snapshot, const std::string& tool) {
    return replay(sanitizer, tool, snapshot);
  };
}

// The original replayed under compute-sanitizer's tools on the first oracle, poisoned as every
// candidate will be: what a candidate's replay is held against (NVIDIA, where the tool is there).
void Session::sanitize_original() {
  const auto found = seams_.find_sanitizer();
  const bool runs = out_.vendor == "nvidia" && found;  // else the gate says why without replaying anything
  const fs::path dir = work_ / "oracle" / "sanitize";
  if (runs) optimize::derive_snapshot(snapshots_.front(), dir, baseline_code_, out_.oracles.front().written);
  out_.sanitizer = optimize::open_sanitizer_gate(out_.vendor, found, dir, sanitized_replayer(found.value_or("")));
  if (runs) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  const auto& gate = out_.sanitizer;
  if (gate.warning) out_.warnings.push_back("sanitizer stage skipped: " + gate.reason);
  if (!gate.open) return;
  std::string said;
  for (const auto& r : gate.original) said += fmt::format("{}{} {}", said.empty() ? "" : ", ", r.tool, r.errors);
  say(EventKind::stage_finished, "sanitizer",
      fmt::format("sanitizer: the original replayed under racecheck, synccheck and memcheck in {:.1f} s (reports: {})",
                  gate.original_seconds, said));
}

// The candidate replayed under each tool on the first oracle: a report of a kind that the
// original's replay does not show rejects it.
bool Session::sanitize(CandidateRecord& c, const std::string& code) {
  if (!out_.sanitizer.open) return true;
  const fs::path dir = c.dir / "sanitize";
  optimize::derive_snapshot(snapshots_.front(), dir, code, out_.oracles.front().written);
  c.sanitizer = optimize::sanitize_candidate(out_.sanitizer, dir, sanitized_replayer(out_.sanitizer.sanitizer));
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (c.sanitizer.empty() || c.sanitizer.back().new_findings.empty()) return true;
  const auto& pass = c.sanitizer.back();
  const size_t more = pass.new_findings.size() - 1;
  reject(c, "sanitizer", fmt::format("{}: {}{}; the original's replay shows no such report", pass.tool, pass.new_findings.front(),
                                     more ? fmt::format(" (and {})", counted(more, "more report")) : ""));
  return false;
}

double Session::time_replay(const fs::path& snapshot) const { return seams_.time_replay(out_.vendor, snapshot, o_.launches); }

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
    if (c.verdict == "accepted") {
      line += ", accepted";
      if (out_.oracle_shapes == 1) line += std::string("; ") + optimize::kOneShapeVerdict;
    }
  } else {
    line += fmt::format("rejected ({}: {})", c.stage, c.reason);
  }
  for (const auto& a : c.advisories) line += fmt::format("; advisory, {}: {}", a.guard, a.reason);
  say(EventKind::candidate_verdict, "candidate", line);
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
  propose_rules(batch);
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

// Launch bounds for the captured block, and __restrict__ where every oracle shows the pointers apart.
void Session::propose_rules(std::vector<CandidateRecord*>& batch) {
  std::vector<std::pair<std::string, optimize::RuleProposals>> proposals;
  if (o_.launch_bounds) {
    const auto& d = snapshots_.front().dispatch;
    proposals.emplace_back("launch_bounds", optimize::launch_bounds_variants(source_, *kernel_, out_.architecture,
                                                                              d.block[0] * d.block[1] * d.block[2]));
  }
  if (o_.restrict_pointers) proposals.emplace_back("restrict", optimize::restrict_variant(source_, *kernel_, snapshots_));
  for (const auto& [kind, p] : proposals) {
    out_.refused_proposals.insert(out_.refused_proposals.end(), p.refused.begin(), p.refused.end());
    for (const auto& v : p.variants) batch.push_back(&add_candidate(kind, v.origin, v.text));
  }
}

// The kernel's registers, spills and occupancy in binary's code object, at the captured block size.
std::optional<analysis::InspectedKernel> Session::inspect_kernel(const fs::path& binary) const {
  analysis::InspectOptions io;
  io.arch = out_.architecture;
  io.kernel_regex = analysis::exact_name_regex(out_.mangled_name);
  const auto& d = snapshots_.front().dispatch;
  io.block = static_cast<int>(d.block[0] * d.block[1] * d.block[2]);
  return seams_.inspect(binary, io);
}

bool Session::check_code(CandidateRecord& c, const fs::path& binary) {
  auto code = code_object(binary);
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
  if (!check_resources(c) || !check_oracles(c, *code) || !sanitize(c, *code)) return false;
  // The replays that time it run the candidate's code on the first oracle, unpoisoned.
  optimize::derive_snapshot(snapshots_.front(), c.dir / "timing", *code, {});
  return true;
}

// Spills and a lower occupancy than the original's predict a slower kernel: a rejection for an
// unrolled loop, an advisory for the rest (resource_guard.hpp).
bool Session::check_resources(CandidateRecord& c) {
  if (!c.resources || !out_.baseline_resources) return true;
  auto found = optimize::compare_resources(*out_.baseline_resources, *c.resources);
  if (!found.empty() && optimize::resources_prefilter(c.kind)) {
    reject(c, found.front().guard, found.front().reason);
    return false;
  }
  c.advisories = std::move(found);
  return true;
}

// Each oracle replayed twice, its written bytes filled with one pattern and then another: the first
// replay must reproduce the reference (correctness), and so must the second, or the result depends
// on what the output held before or on the run (determinism).
bool Session::check_oracles(CandidateRecord& c, const std::string& code) {
  for (size_t i = 0; i < snapshots_.size(); ++i) {
    for (const unsigned char pattern : {optimize::kPoisonByte, optimize::kSecondPoisonByte}) {
      const auto v = optimize::check_on_oracle(snapshots_[i], code, out_.oracles[i].written, c.dir / "check", replayer(), o_.compare, pattern);
      std::error_code ec;
      fs::remove_all(c.dir / "check", ec);
      if (v.passed) continue;
      c.correct = false;
      if (pattern == optimize::kPoisonByte) {
        reject(c, "correctness", fmt::format("oracle {} (dispatch {}): {}", i + 1, out_.oracles[i].dispatch, v.failure));
      } else {
        reject(c, "determinism", fmt::format("oracle {} (dispatch {}) reproduced with its written bytes filled with 0x{:02X}, "
                                             "not with 0x{:02X}: {}", i + 1, out_.oracles[i].dispatch, optimize::kPoisonByte,
                                             pattern, v.failure));
      }
      return false;
    }
  }
  c.correct = true;
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

// The guards on the text: a duplicate, a parse, the signature and the rest of the file; and what
// the parameters the original reads come to, for after the build.
void Session::check_source(CandidateRecord& c) {
  if (!seen_texts_.insert(c.text).second) {
    reject(c, "duplicate", "the same source as an earlier candidate");
    return;
  }
  try {
    const auto parsed = optimize::parse_kernel_source(o_.source, c.text);
    const auto* def = parsed.find(kernel_->name);
    if (!def) {
      reject(c, "signature", fmt::format("it defines no kernel named {}", kernel_->name));
      return;
    }
    c.definition = c.text.substr(def->definition.begin, def->definition.end - def->definition.begin);
    const auto verdict = optimize::check_source_guards(source_, *kernel_, parsed);
    if (!verdict.passed()) {
      reject(c, verdict.guard, verdict.reason);
    } else {
      parameters_read_[c.id] = optimize::check_parameters_read(source_, *kernel_, parsed, o_.allow_unused_params);
    }
  } catch (const Error& e) {
    reject(c, "parse", e.what());
  }
}

void Session::evaluate(std::vector<CandidateRecord*> batch) {
  std::vector<CandidateRecord*> to_build;
  for (auto* c : batch) {
    check_source(*c);
    if (c->stage.empty()) {
      to_build.push_back(c);
    } else {
      report(*c);
    }
  }
  std::vector<std::pair<std::string, fs::path>> variants;
  for (auto* c : to_build) variants.emplace_back(c->text, c->dir);
  // Cancelled, nothing more is built: each is rejected as a build stopped would be.
  auto built = cancelled() ? std::vector<optimize::BuiltVariant>(variants.size()) : build_all(variants);
  for (auto& b : built) {
    if (!b.ok && b.failure.empty()) b.failure = "not built: the run was interrupted";
  }
  for (size_t i = 0; i < to_build.size(); ++i) {
    auto& c = *to_build[i];
    c.build_seconds = built[i].seconds;
    // A kernel that stopped reading a parameter is judged once it builds: a compiler's errors are
    // what a model repairs from.
    const auto& read = parameters_read_[c.id];
    if (!built[i].ok) {
      c.build_log = built[i].log;
      reject(c, "compile", built[i].failure);
    } else if (!read.passed()) {
      reject(c, read.guard, read.reason);
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
  for (int round = 1; round <= o_.llm_rounds && !cancelled(); ++round) {
    // Each round refines the fastest correct candidate so far.
    const CandidateRecord* best = nullptr;
    for (const auto& c : out_.candidates) {
      if (c.stage.empty() && c.replay && (!best || c.replay->after_mean < best->replay->after_mean)) best = &c;
    }
    const std::string definition = best ? best->definition
                                        : source_.text.substr(kernel_->definition.begin, kernel_->definition.end - kernel_->definition.begin);
    auto messages = optimize::optimization_request(*kernel_, definition, facts, earlier_verdicts());
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

// What the earlier candidates of files and models came to, a line each (the last eight), for the
// next request: the stage that stopped each, or its speed, and the advisories it carries.
std::string Session::earlier_verdicts() const {
  std::vector<std::string> lines;
  for (const auto& c : out_.candidates) {
    if (c.kind != "llm" && c.kind != "file") continue;
    std::string line = "- " + c.origin + ": ";
    if (!c.stage.empty()) {
      line += fmt::format("rejected by the {} guard: {}", c.stage, c.reason);
    } else if (c.replay) {
      line += fmt::format("correct, {:.2f}x the original's speed on replay", c.replay->before_mean / c.replay->after_mean);
    } else {
      line += "correct";
    }
    for (const auto& a : c.advisories) line += fmt::format("; advisory ({}): {}", a.guard, a.reason);
    lines.push_back(std::move(line));
  }
  std::string out;
  for (size_t i = lines.size() > 8 ? lines.size() - 8 : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

void Session::confirm(CandidateRecord& c, const optimize::BuiltVariant& again) {
  // The rebuilt program must be deterministic too, exit 0, print what it printed, and be faster.
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
    if (const auto why = output_difference(baseline_output_, got, o_.compare.rtol, o_.compare.atol)) {
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

}  // namespace rpl::workflow::optimize_steps
