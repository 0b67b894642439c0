#include <rpl/report/isolate_report.hpp>

#include <fmt/format.h>

#include <rpl/report/json_documents.hpp>

namespace rpl::report {
using ordered_json = nlohmann::ordered_json;

namespace {
std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20)); }
}  // namespace

ordered_json isolate_json(const IsolateFacts& f) {
  ordered_json doc = document_header();
  doc["snapshot_dir"] = f.snapshot_dir;
  doc["kernel"] = {{"name", f.dispatch.kernel_name}, {"mangled_name", f.dispatch.mangled_name}};
  doc["dispatch_index"] = f.dispatch.dispatch_index;
  doc["device"] = {{"name", f.dispatch.device_name}, {"architecture", f.dispatch.architecture}};
  doc["launch"] = {{"grid", f.dispatch.grid}, {"block", f.dispatch.block},
                   {"dynamic_shared_bytes", f.dispatch.dynamic_shared_bytes}};
  doc["memory"] = {{"regions", f.status.regions},
                   {"bytes", f.status.bytes},
                   {"stored_bytes", f.status.stored_bytes},
                   {"skipped_bytes", f.status.skipped_bytes},
                   {"globals", f.dispatch.globals.size()}};
  doc["snapshot_bytes"] = f.snapshot_bytes;
  doc["capture_ms"] = f.status.capture_ms;
  doc["after_ms"] = f.status.after_ms ? ordered_json(*f.status.after_ms) : ordered_json();
  if (f.program_time) {
    const auto& t = *f.program_time;
    doc["program_time"] = {{"captured_dispatch_ms", t.captured_dispatch_ms ? ordered_json(*t.captured_dispatch_ms) : ordered_json()},
                           {"median_ms", t.median_ms},
                           {"dispatches", t.dispatches}};
  } else {
    doc["program_time"] = nullptr;
  }
  doc["program"] = {{"exit_status", f.program_exit_status}, {"wall_s", f.program_wall_s}};
  doc["warnings"] = f.status.warnings;
  return doc;
}

std::string isolate_text(const IsolateFacts& f) {
  std::string out = fmt::format("Captured {} (dispatch {}) on {} into {}\n", f.dispatch.kernel_name, f.dispatch.dispatch_index,
                                f.dispatch.device_name, f.snapshot_dir);
  out += fmt::format("  grid [{}, {}, {}], block [{}, {}, {}], {} B dynamic shared memory, {}-byte argument buffer\n",
                     f.dispatch.grid[0], f.dispatch.grid[1], f.dispatch.grid[2], f.dispatch.block[0], f.dispatch.block[1],
                     f.dispatch.block[2], f.dispatch.dynamic_shared_bytes, f.dispatch.kernarg_size);
  out += fmt::format("  memory: {} regions, {} ({} never written, stored as nothing; the rest in {}); {} globals; {} on disk "
                     "with the after-dispatch dump\n",
                     f.status.regions, mib(f.status.bytes), mib(f.status.skipped_bytes), mib(f.status.stored_bytes),
                     f.dispatch.globals.size(), mib(f.snapshot_bytes));
  out += fmt::format("  the capture held the program {:.1f} ms before the launch and {:.1f} ms after it\n", f.status.capture_ms,
                     f.status.after_ms.value_or(0));
  if (f.program_time) {
    out += fmt::format("  in the program: median {:.4f} ms over {} dispatches", f.program_time->median_ms, f.program_time->dispatches);
    if (f.program_time->captured_dispatch_ms) out += fmt::format(", the captured one {:.4f} ms", *f.program_time->captured_dispatch_ms);
    out += "\n";
  }
  out += fmt::format("Replay it: rocm-perf replay full-vm --capture-dir {} --iterations 100\n", f.snapshot_dir);
  return out;
}

std::string replay_text(const ordered_json& r) {
  std::string out;
  const std::string mode = r.value("mode", "");
  if (mode == "reserve-check") {
    out = fmt::format("{} address ranges for {} of device memory of {}: {}\n", r["reservations"].size(), mib(r.value("device_bytes", uint64_t{0})),
                      r["kernel"].value("name", ""), r.value("status", ""));
    for (const auto& s : r["reservations"]) {
      if (s.value("status", "") == "exact") continue;
      out += fmt::format("  {} ({}): {}{}\n", s.value("base", ""), mib(s.value("size", uint64_t{0})), s.value("status", ""),
                         s.contains("got") ? " to " + s.value("got", "") : s.contains("error") ? " (" + s.value("error", "") + ")" : "");
    }
    return out;
  }
  const auto& t = r["gpu_time_ms"];
  out = fmt::format("Replayed {} on {}: {} iterations ({}), GPU time median {:.4f} ms, average {:.4f}, min {:.4f}, max {:.4f}; "
                    "wall {:.1f} ms\n",
                    r["kernel"].value("name", ""), r.value("device", ""), r.value("iterations", uint64_t{0}), mode,
                    t.value("median", 0.0), t.value("average", 0.0), t.value("min", 0.0), t.value("max", 0.0),
                    r.value("wall_time_ms", 0.0));
  if (r.contains("dump_dir") && r["dump_dir"].is_string()) {
    out += fmt::format("  memory after the last iteration: {} (compare with rocm-perf replay compare)\n", r["dump_dir"].get<std::string>());
  }
  return out;
}

}  // namespace rpl::report
