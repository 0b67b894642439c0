// optimize.json: the rendering of an optimize result (schemas/optimize.schema.json).
#include <map>

#include <rpl/workflow/optimize.hpp>

namespace rpl::workflow {
namespace {

using report::Json;
using report::round6;

Json numbers(const std::vector<double>& values) {
  Json out = Json::array();
  for (double v : values) out.push_back(round6(v));
  return out;
}

Json optional_number(const std::optional<double>& v) { return v ? Json(round6(*v)) : Json(nullptr); }

Json kernel_resources(const std::optional<analysis::InspectedKernel>& k) {
  if (!k) return nullptr;
  Json j;
  j["registers_per_thread"] = k->resources.vgpr_per_thread;
  j["static_shared_bytes"] = k->resources.static_lds_bytes;
  j["scratch_bytes"] = k->resources.scratch_bytes;
  j["spills"] = k->vgpr_spills + k->sgpr_spills;
  j["occupancy"] = k->occupancy ? Json(round6(k->occupancy->theoretical)) : Json(nullptr);
  j["occupancy_limiter"] = k->occupancy ? Json(k->occupancy->limiter) : Json(nullptr);
  return j;
}

Json sample_change(const analysis::SampleChange& c) {
  return {{"change_pct", round6(c.change_pct)},
          {"noise_pct", optional_number(c.noise_pct)},
          {"verdict", analysis::verdict_name(c.verdict)}};
}

Json candidate_json(const CandidateRecord& c) {
  Json origin;
  origin["kind"] = c.kind;
  origin["description"] = c.origin;
  if (c.kind == "unroll") origin["loop_line"] = c.loop_line, origin["factor"] = c.factor;
  if (c.kind == "llm") origin["round"] = c.round, origin["attempt"] = c.attempt;
  if (c.kind == "file") origin["file"] = c.file;
  Json j;
  j["id"] = c.id;
  j["origin"] = origin;
  j["verdict"] = c.verdict;
  j["stage"] = c.stage.empty() ? Json(nullptr) : Json(c.stage);
  j["reason"] = c.reason;
  j["build"] = c.build_seconds ? Json{{"seconds", round6(*c.build_seconds)}, {"ok", c.stage != "compile"}} : Json(nullptr);
  j["resources"] = kernel_resources(c.resources);
  j["advisories"] = Json::array();
  for (const auto& a : c.advisories) j["advisories"].push_back({{"guard", a.guard}, {"reason", a.reason}});
  j["correct"] = c.correct ? Json(*c.correct) : Json(nullptr);
  if (c.sanitizer.empty()) {
    j["sanitizer"] = nullptr;
  } else {
    j["sanitizer"] = Json::array();
    for (const auto& p : c.sanitizer) {
      j["sanitizer"].push_back({{"tool", p.tool}, {"errors", p.errors}, {"hazards", p.hazards}, {"new_findings", p.new_findings},
                                {"seconds", round6(p.seconds)}});
    }
  }
  if (c.replay) {
    Json r = sample_change(*c.replay);
    r["original_ms"] = numbers(c.original_ms);
    r["candidate_ms"] = numbers(c.candidate_ms);
    r["speedup"] = round6(c.replay->before_mean / c.replay->after_mean);
    j["replay"] = r;
  } else {
    j["replay"] = nullptr;
  }
  if (c.program_kernel && c.program_critical_path) {
    j["program"] = {{"kernel_change_pct", round6(c.program_kernel->change_pct)},
                    {"kernel_verdict", analysis::verdict_name(c.program_kernel->verdict)},
                    {"critical_path", sample_change(*c.program_critical_path)}};
  } else {
    j["program"] = nullptr;
  }
  j["dir"] = c.dir.string();
  return j;
}

Json sanitizer_json(const optimize::SanitizerGate& s) {
  Json original = Json::array();
  for (const auto& r : s.original) {
    Json findings = Json::array();
    for (const auto& f : r.findings) findings.push_back(f.text);
    original.push_back({{"tool", r.tool}, {"errors", r.errors}, {"hazards", r.hazards}, {"findings", findings}});
  }
  return {{"ran", s.open},
          {"reason", s.reason.empty() ? Json(nullptr) : Json(s.reason)},
          {"original", original},
          {"original_seconds", round6(s.original_seconds)}};
}

}  // namespace

report::Json optimize_document(const OptimizeResult& r, const std::filesystem::path& source) {
  Json j = report::document_header();
  j["source"] = source.string();
  j["kernel"] = {{"name", r.kernel_name}, {"mangled_name", r.mangled_name}, {"line", r.kernel_line}};
  j["device"] = {{"vendor", r.vendor}, {"name", r.device}, {"architecture", r.architecture}};
  j["baseline"] = {{"build_seconds", round6(r.baseline_build_seconds)},
                   {"kernel_ms_per_run", numbers(r.baseline_kernel_ms)},
                   {"critical_path_ms", numbers(r.baseline_critical_path_ms)},
                   {"critical_path_share", round6(r.critical_path_share)},
                   {"amdahl_ceiling", optional_number(r.amdahl_ceiling)},
                   {"resources", kernel_resources(r.baseline_resources)}};
  j["oracles"] = Json::array();
  for (const auto& o : r.oracles) {
    j["oracles"].push_back({{"dispatch", o.dispatch}, {"command", o.command}, {"snapshot", o.dir.string()},
                            {"poisoned_bytes", o.poisoned_bytes}, {"notes", o.notes}});
  }
  j["poison_patterns"] = {optimize::kPoisonByte, optimize::kSecondPoisonByte};
  j["oracle_shapes"] = r.oracle_shapes;
  j["sanitizer"] = sanitizer_json(r.sanitizer);
  j["refused_loops"] = r.refused_loops;
  j["refused_proposals"] = r.refused_proposals;
  j["candidates"] = Json::array();
  for (const auto& c : r.candidates) j["candidates"].push_back(candidate_json(c));
  j["rejections"] = Json::object();
  for (const auto& [stage, n] : rejections_by_stage(r)) j["rejections"][stage] = n;
  if (r.best) {
    const auto& b = r.candidates[*r.best];
    j["best"] = {{"id", b.id},
                 {"kernel_speedup", round6(b.replay->before_mean / b.replay->after_mean)},
                 {"program_kernel_change_pct", round6(b.program_kernel->change_pct)},
                 {"critical_path_change_pct", round6(b.program_critical_path->change_pct)},
                 {"patch", "best.patch"},
                 {"file", "best/" + source.filename().string()},
                 {"applied", r.applied}};
  } else {
    j["best"] = nullptr;
  }
  j["elapsed_seconds"] = round6(r.elapsed_seconds);
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace rpl::workflow
