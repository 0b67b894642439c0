#include <rpl/optimize/sanitizer.hpp>

#include <chrono>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include <rpl/core/error.hpp>
#include <rpl/core/stop_signals.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/core/text.hpp>

namespace rpl::optimize {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "=========";

// "42" of "[42 hazards]"; "1,125" of "1,125 errors".
uint64_t number_in(const std::string& s) {
  std::string digits;
  for (char c : s) {
    if (c >= '0' && c <= '9') digits += c;
  }
  return digits.empty() ? 0 : std::stoull(digits);
}

// "f(const float *, int)+0x12b0" -> "f+0x12b0": the function's parameters say nothing here.
std::string without_parameters(std::string symbol) {
  const size_t open = symbol.find('(');
  if (open == std::string::npos) return symbol;
  int depth = 0;
  for (size_t i = open; i < symbol.size(); ++i) {
    if (symbol[i] == '(') ++depth;
    if (symbol[i] == ')' && --depth == 0) return symbol.erase(open, i + 1 - open);
  }
  return symbol;
}

// A place and what remains of the line without it: "Write access at f()+0x12b0 in a.cu:35"
// -> ("Write access", "a.cu:35"), where the build has line info; else the function and offset.
std::pair<std::string, std::string> split_place(const std::string& line) {
  const size_t at = line.find(" at ");
  if (at == std::string::npos) return {line, ""};
  std::string what = line.substr(0, at), where = line.substr(at + 4);
  if (const size_t bracket = where.find(" ["); bracket != std::string::npos) where.resize(bracket);
  if (const size_t in = where.rfind(" in "); in != std::string::npos) {
    where = where.substr(in + 4);
    if (const size_t slash = where.rfind('/'); slash != std::string::npos) where = where.substr(slash + 1);
  } else {
    where = without_parameters(where);
  }
  return {what, where};
}

// The kind with its first three places; where the build has no line info, how to get it.
void finish(SanitizerFinding& f) {
  f.text = f.kind;
  if (!f.places.empty()) {
    std::string where;
    for (size_t i = 0; i < f.places.size() && i < 3; ++i) where += (where.empty() ? "" : ", ") + f.places[i];
    if (f.places.size() > 3) where += fmt::format(" and {} more", f.places.size() - 3);
    if (f.places.front().find('+') != std::string::npos) where += "; build with -lineinfo for source lines";
    f.text += " (at " + where + ")";
  }
  if (f.hazards) f.text += fmt::format(" [{} hazards]", f.hazards);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SanitizerReport parse_sanitizer_log(const std::string& tool, const std::string& log) {
  SanitizerReport report;
  report.tool = tool;
  SanitizerFinding* current = nullptr;
  std::set<std::string> places;  // of the current finding
  size_t at = 0;
  while (at < log.size()) {
    const size_t eol = std::min(log.find('\n', at), log.size());
    const std::string line = log.substr(at, eol - at);
    at = eol + 1;
    if (line.compare(0, kPrefix.size(), kPrefix) != 0) continue;  // the replayer's own words
    const std::string body = line.size() > kPrefix.size() + 1 ? line.substr(kPrefix.size() + 1) : "";
    const std::string text = trimmed(body);
    if (text.empty()) {
      current = nullptr;
      continue;
    }
    if (text == "COMPUTE-SANITIZER") continue;
    if (text.rfind("ERROR SUMMARY:", 0) == 0 || text.rfind("RACECHECK SUMMARY:", 0) == 0) {
      // "ERROR SUMMARY: 1125 errors" (a second line says how many were not printed), "RACECHECK
      // SUMMARY: 2 hazards displayed (0 errors, 2 warnings)": the first figure after the colon.
      if (!report.summarized) {
        const std::string figures = trimmed(text.substr(text.find(':') + 1));
        report.errors = number_in(figures.substr(0, figures.find(' ')));
      }
      report.summarized = true;
      current = nullptr;
      continue;
    }
    const bool detail = body[0] == ' ';
    if (!detail || !current) {
      report.findings.emplace_back();
      current = &report.findings.back();
      places.clear();
      const auto [what, where] = split_place(text);
      current->kind = what;
      if (!where.empty() && places.insert(where).second) current->places.push_back(where);
      continue;
    }
    // Racecheck names the other access of each hazard on lines of its own: "and Read access at ... [N hazards]".
    if (tool == "racecheck" && text.rfind("and ", 0) == 0) {
      const auto [what, where] = split_place(text);
      if (current->kind.find(what) == std::string::npos) current->kind += " " + what;
      if (!where.empty() && places.insert(where).second) current->places.push_back(where);
      if (const size_t bracket = text.rfind('['); bracket != std::string::npos) current->hazards += number_in(text.substr(bracket));
    } else if (text.rfind("at ", 0) == 0 && current->places.empty()) {
      const auto [what, where] = split_place(" " + text);
      if (!where.empty() && places.insert(where).second) current->places.push_back(where);
    }
  }
  for (auto& f : report.findings) {
    finish(f);
    report.hazards += f.hazards;
  }
  return report;
}

std::vector<SanitizerFinding> new_findings(const SanitizerReport& original, const SanitizerReport& candidate) {
  std::set<std::string> known;
  for (const auto& f : original.findings) known.insert(f.kind);
  std::vector<SanitizerFinding> out;
  std::set<std::string> seen;
  for (const auto& f : candidate.findings) {
    if (!known.count(f.kind) && seen.insert(f.kind + f.text).second) out.push_back(f);
  }
  if (!candidate.summarized && original.summarized) {
    SanitizerFinding f;
    f.kind = f.text = "the tool did not run to its end (no summary in its log)";
    out.push_back(f);
  }
  return out;
}

std::optional<fs::path> find_compute_sanitizer() {
  if (const char* set = std::getenv("RPL_COMPUTE_SANITIZER"); set && *set) {
    std::error_code ec;
    if (fs::is_regular_file(set, ec)) return fs::path(set);
    return std::nullopt;
  }
  return find_executable("compute-sanitizer", {"/usr/local/cuda/bin"});
}

SanitizerGate open_sanitizer_gate(const std::string& vendor, const std::optional<fs::path>& sanitizer,
                                  const fs::path& original_snapshot, const SanitizedReplayer& replay) {
  SanitizerGate gate;
  if (vendor != "nvidia") {
    gate.reason = "AMD GPUs have no compute-sanitizer; the oracles' two poison patterns are the check for races there";
    return gate;
  }
  gate.warning = true;
  if (!sanitizer) {
    gate.reason = "compute-sanitizer was not found (PATH, /usr/local/cuda/bin, $RPL_COMPUTE_SANITIZER): candidates were not "
                  "checked for races, barrier errors or out-of-bounds accesses";
    return gate;
  }
  const auto started = std::chrono::steady_clock::now();
  try {
    for (const auto& tool : kSanitizerTools) {
      gate.original.push_back(parse_sanitizer_log(tool, replay(original_snapshot, tool)));
      if (!gate.original.back().summarized) fail(Errc::run_failed, "--tool {} did not run to its end", tool);
    }
  } catch (const Error& e) {
    if (stop_requested()) throw;
    gate.original.clear();
    gate.reason = fmt::format("the original's replay under compute-sanitizer failed ({})", e.what());
    return gate;
  }
  gate.open = true;
  gate.sanitizer = *sanitizer;
  gate.warning = false;
  gate.original_seconds = seconds_since(started);
  return gate;
}

std::vector<SanitizerPass> sanitize_candidate(const SanitizerGate& gate, const fs::path& snapshot, const SanitizedReplayer& replay) {
  std::vector<SanitizerPass> passes;
  for (size_t i = 0; gate.open && i < kSanitizerTools.size(); ++i) {
    const auto started = std::chrono::steady_clock::now();
    SanitizerPass pass;
    pass.tool = kSanitizerTools[i];
    try {
      const auto report = parse_sanitizer_log(pass.tool, replay(snapshot, pass.tool));
      pass.errors = report.errors;
      pass.hazards = report.hazards;
      for (const auto& f : new_findings(gate.original.at(i), report)) pass.new_findings.push_back(f.text);
    } catch (const Error& e) {
      if (e.code() == Errc::missing_tool || stop_requested()) throw;
      pass.new_findings.push_back(fmt::format("the replay under {} failed: {}", pass.tool, e.what()));
    }
    pass.seconds = seconds_since(started);
    const bool stop = !pass.new_findings.empty();
    passes.push_back(std::move(pass));
    if (stop) break;
  }
  return passes;
}

}  // namespace rpl::optimize
