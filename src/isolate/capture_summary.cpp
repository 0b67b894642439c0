#include <rpl/isolate/capture_summary.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>

namespace rpl::isolate {

std::string format_capture_status(const CaptureStatus& s) {
  nlohmann::ordered_json j = {{"captured", s.captured}};
  if (!s.captured) {
    if (!s.error.empty()) {
      j["error"] = s.error;
    } else {
      j["launches"] = s.launches;
    }
    return j.dump(2) + "\n";
  }
  j["kernel"] = s.kernel;
  j["dispatch_index"] = s.dispatch_index;
  if (s.correlation_id) j["correlation_id"] = *s.correlation_id;
  j["regions"] = s.regions;
  j["bytes"] = s.bytes;
  j["stored_bytes"] = s.stored_bytes;
  j["skipped_bytes"] = s.skipped_bytes;
  j["capture_ms"] = s.capture_ms;
  j["after_ms"] = s.after_ms ? nlohmann::ordered_json(*s.after_ms) : nlohmann::ordered_json(nullptr);
  j["warnings"] = s.warnings;
  return j.dump(2) + "\n";
}

CaptureStatus parse_capture_status(const std::string& text, const std::filesystem::path& file) {
  CaptureStatus s;
  try {
    const auto j = nlohmann::json::parse(text);
    s.captured = j.at("captured").get<bool>();
    s.error = j.value("error", std::string());
    if (j.contains("launches")) s.launches = j["launches"].get<std::map<std::string, uint64_t>>();
    if (!s.captured) return s;
    s.kernel = j.at("kernel").get<std::string>();
    s.dispatch_index = j.at("dispatch_index").get<uint64_t>();
    if (j.contains("correlation_id")) s.correlation_id = j["correlation_id"].get<uint64_t>();
    s.regions = j.at("regions").get<uint64_t>();
    s.bytes = j.at("bytes").get<uint64_t>();
    s.stored_bytes = j.value("stored_bytes", uint64_t{0});
    s.skipped_bytes = j.value("skipped_bytes", uint64_t{0});
    s.capture_ms = j.at("capture_ms").get<double>();
    if (j.contains("after_ms") && !j["after_ms"].is_null()) s.after_ms = j["after_ms"].get<double>();
    s.warnings = j.value("warnings", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    fail(Errc::internal, "{}: not what the capture library writes ({})", file.string(), e.what());
  }
  return s;
}

std::optional<ProgramKernelTime> kernel_time_in_trace(const trace::Trace& trace, const std::string& mangled_name,
                                                      uint64_t dispatch_index) {
  std::vector<std::pair<int64_t, int64_t>> dispatches;  // start, duration
  for (const auto& d : trace.dispatches) {
    if (d.symbol >= 0 && trace.symbols[static_cast<size_t>(d.symbol)].mangled_name == mangled_name) {
      dispatches.emplace_back(d.start_ns, d.duration_ns());
    }
  }
  if (dispatches.empty()) return std::nullopt;
  std::sort(dispatches.begin(), dispatches.end());
  ProgramKernelTime t;
  t.dispatches = dispatches.size();
  if (dispatch_index < dispatches.size()) t.captured_dispatch_ms = static_cast<double>(dispatches[dispatch_index].second) / 1e6;
  std::vector<int64_t> durations;
  for (const auto& [start, duration] : dispatches) durations.push_back(duration);
  std::sort(durations.begin(), durations.end());
  const size_t n = durations.size();
  t.median_ms = (n % 2 ? static_cast<double>(durations[n / 2]) : (durations[n / 2 - 1] + durations[n / 2]) / 2.0) / 1e6;
  return t;
}

}  // namespace rpl::isolate
