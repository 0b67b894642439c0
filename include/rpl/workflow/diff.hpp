#pragma once
// rocm-perf diff as a library call: two profiles (folders that profile or analyze --out wrote, or
// their profile.json alone) compared kernel by kernel against the noise both measured
// (docs/diff.md). The CLI prints the result; diff_document is its JSON.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <rpl/analysis/profile_diff.hpp>
#include <rpl/analysis/profile_summary.hpp>
#include <rpl/workflow/control.hpp>

namespace rpl::workflow {

struct DiffRequest {
  std::filesystem::path before, after;
  std::optional<double> fail_on_regression_pct;  // a slower kernel beyond this is a regression
};

/// What diff reads from one profile.
struct DiffProfile {
  std::string path;
  analysis::ProfileTimes times;
  std::optional<analysis::GpuSummary> gpu;              // its architecture and product, where it says
  std::string dominant_kernel;                          // the kernel profile.json describes
  std::optional<double> dominant_occupancy;             // its theoretical occupancy, where computed
  std::map<std::string, std::string> roofline_position; // kernel -> memory_bound, ..., where roofline.json ran
  bool from_traces = false;                             // its run databases, not profile.json alone

  /// "product (architecture)", or "architecture, product not recorded" where the trace named no
  /// product (the table's stand-in is no GPU to compare); empty where the profile does not say.
  std::string gpu_label() const;

  /// The theoretical occupancy of kernel, where this profile computed one (its dominant kernel).
  std::optional<double> occupancy_of(const std::string& kernel) const;
};

struct DiffResult {
  DiffProfile before, after;
  std::vector<analysis::KernelChange> changes;       // most time first
  std::map<std::string, std::string> short_names;    // kernel -> its unique short name
  std::vector<size_t> regressions;                   // indices into changes
  std::optional<double> fail_on_regression_pct;
  std::vector<std::string> warnings;
};

/// Error(bad_input) naming the file where a profile cannot be read.
DiffResult run_diff(const DiffRequest& request, Control& control);

/// diff.json (schemas/diff.schema.json).
nlohmann::json diff_document(const DiffResult& result);

}  // namespace rpl::workflow
