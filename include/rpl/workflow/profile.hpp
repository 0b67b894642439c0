#pragma once
// rocm-perf profile as a library call: the program run under the vendor's tracer (or timed whole),
// the counter passes asked for, the dominant kernel's deep pass, then the analysis of the trace
// (workflow/analyze.hpp) written into the output folder (DESIGN.md "Output folder of profile").
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/backends/run_options.hpp>
#include <rpl/workflow/analyze.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct ProfileRequest {
  backends::RunOptions run;                 // the program, runs, timeout, its output, trace level
  std::filesystem::path out_dir;
  std::string backend = "auto";             // auto, rocm, cuda
  bool no_rocprof = false;                  // time the whole process instead
  std::optional<std::string> kernel_regex;
  bool counters = false;                    // NVIDIA: an ncu pass with metrics
  bool roofline = false;                    // counter passes for the roofline of every kernel
  bool deep = false;                        // the dominant kernel's stalls (AMD thread trace; NVIDIA ncu)
  int att_target_cu = 1;
  int roofline_launches = 0;                // 0: every launch
  std::vector<std::string> metrics;
  AnalysisOptions analyses;
};

struct ProfileResult {
  analysis::ProfileSummary summary;         // its warnings include the counter passes' and --deep's
  std::optional<TraceAnalysis> analysis;    // none with no_rocprof
  nlohmann::ordered_json profile;           // profile.json, as written
};

/// Errors: bad_input before anything runs (a missing program, a bad ceilings file, --counters on
/// AMD); run_failed where the program ran but recorded no dispatch; missing_tool without a tracer.
ProfileResult run_profile(const ProfileRequest& request, Control& control);

}  // namespace rpl::workflow
