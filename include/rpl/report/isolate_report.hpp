#pragma once
// The documents and summaries of `isolate` (schemas/isolate.schema.json) and of `replay
// reserve-check` / `replay full-vm` (schemas/replay.schema.json, written by the replayer).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <rpl/isolate/capture_summary.hpp>
#include <rpl/isolate/snapshot.hpp>

namespace rpl::report {

struct IsolateFacts {
  std::string snapshot_dir;
  isolate::CaptureStatus status;
  isolate::DispatchRecord dispatch;
  std::optional<isolate::ProgramKernelTime> program_time;
  uint64_t snapshot_bytes = 0;    // on disk, the after/ dump included
  double program_wall_s = 0;
  int program_exit_status = 0;
};

nlohmann::ordered_json isolate_json(const IsolateFacts& facts);
std::string isolate_text(const IsolateFacts& facts);

/// A person's reading of the replayer's document.
std::string replay_text(const nlohmann::ordered_json& replay);

}  // namespace rpl::report
