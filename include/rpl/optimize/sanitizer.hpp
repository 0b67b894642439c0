#pragma once
// What NVIDIA's compute-sanitizer says of one replay: a candidate that passed the oracle is replayed
// once under each of its tools, and any kind of error or hazard that the original's replay under
// the same tool does not also show rejects it (a race that wrote the right bytes this time, a
// write past an allocation that landed in mapped memory, a barrier that not every thread reaches).
// The logs are those of `compute-sanitizer --tool T --log-file F`: every line behind "=========",
// a report's first line unindented and its details indented, and a summary line.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rpl::optimize {

/// The tools a candidate is replayed under, one pass each.
inline const std::vector<std::string> kSanitizerTools = {"racecheck", "synccheck", "memcheck"};

struct SanitizerFinding {
  std::string kind;                    // the report without its places: "Warning: Race reported between Write access and Read access"
  std::vector<std::string> places;     // "softmax.cu:35" where the build has line info, else "softmax_naive(...)+0x12b0"
  uint64_t hazards = 0;                // racecheck: the hazards the report counts
  std::string text;                    // one line: the kind with its places
};

struct SanitizerReport {
  std::string tool;
  uint64_t errors = 0;                 // as the summary counts them (racecheck: hazards displayed)
  uint64_t hazards = 0;                // racecheck: the hazards of every report together
  bool summarized = false;             // the summary line was there: the tool ran to its end
  std::vector<SanitizerFinding> findings;  // each report, in order
};

/// Reads a log of compute-sanitizer's tool.
SanitizerReport parse_sanitizer_log(const std::string& tool, const std::string& log);

/// The findings of candidate whose kind the original's report of the same tool lacks. A log with no
/// summary (the tool did not run to its end) is a finding of its own.
std::vector<SanitizerFinding> new_findings(const SanitizerReport& original, const SanitizerReport& candidate);

/// compute-sanitizer: $RPL_COMPUTE_SANITIZER, else on PATH, else in /usr/local/cuda/bin.
std::optional<std::filesystem::path> find_compute_sanitizer();

/// Replays the snapshot in snapshot_dir once under compute-sanitizer's tool and returns the tool's
/// log (the replay failing under it shows there too). Throws Error when the sanitizer cannot run.
using SanitizedReplayer = std::function<std::string(const std::filesystem::path& snapshot_dir, const std::string& tool)>;

/// The stage as it stands after the original's replay under each tool: what candidates are held
/// against, or why they are not checked.
struct SanitizerGate {
  bool open = false;
  std::filesystem::path sanitizer;  // the compute-sanitizer the original ran under
  std::string reason;    // why it is not: AMD, no compute-sanitizer, the original's replay failing under it
  bool warning = false;  // the reason is worth a warning (not for AMD, which has no such tool)
  std::vector<SanitizerReport> original;  // one per tool, in kSanitizerTools' order
  double original_seconds = 0;
};

/// vendor "nvidia" or "amd"; sanitizer: compute-sanitizer's path, none when it is missing;
/// original_snapshot: the original's code on the first oracle, poisoned as candidates are.
SanitizerGate open_sanitizer_gate(const std::string& vendor, const std::optional<std::filesystem::path>& sanitizer,
                                  const std::filesystem::path& original_snapshot, const SanitizedReplayer& replay);

/// One replay of a candidate under a tool.
struct SanitizerPass {
  std::string tool;
  uint64_t errors = 0, hazards = 0;
  std::vector<std::string> new_findings;  // its reports of kinds that the original's replay does not show
  double seconds = 0;
};

/// The candidate's snapshot replayed under each tool of an open gate, up to the first whose
/// replay shows something new (a replay that fails under it counts). Errors: missing_tool, and
/// whatever a stop request (Ctrl-C) ends with.
std::vector<SanitizerPass> sanitize_candidate(const SanitizerGate& gate, const std::filesystem::path& snapshot,
                                              const SanitizedReplayer& replay);

}  // namespace rpl::optimize
