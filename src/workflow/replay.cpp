#include <rpl/workflow/replay.hpp>

#include <rpl/backends/isolate_runs.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/report/json_documents.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;

ReplayResult run_replay(const ReplayRequest& request, Control& control) {
  control.stage_started("read snapshot");
  const auto snapshot = isolate::read_snapshot(request.capture_dir);
  control.stage_finished("read snapshot");
  backends::ReplayRequest run_request;
  run_request.mode = request.mode;
  run_request.capture_dir = request.capture_dir;
  run_request.iterations = request.iterations;
  run_request.recopy = request.recopy;
  run_request.timeout_seconds = request.timeout_seconds;
  bool created_dump_dir = false;
  if (!request.dump_dir.empty()) {
    created_dump_dir = !fs::exists(request.dump_dir);
    create_output_folder(request.dump_dir);
    run_request.dump_dir = request.dump_dir;
  }
  control.stage_started("replay");
  backends::ReplayRun run;
  try {
    run = backends::replay_snapshot(snapshot.dispatch.vendor, run_request);
  } catch (...) {
    // A folder this call made holds nothing worth keeping after a failed replay.
    std::error_code ec;
    if (created_dump_dir) fs::remove_all(request.dump_dir, ec);
    throw;
  }
  control.stage_finished("replay");
  ReplayResult r;
  r.exit_status = run.exit_status;
  r.document = report::document_header();
  const auto replayed = nlohmann::ordered_json::parse(run.document);
  for (const auto& [key, value] : replayed.items()) {
    if (key != "schema_version") r.document[key] = value;
  }
  return r;
}

CompareResult run_compare(const CompareRequest& request, Control& control) {
  isolate::check_tolerances_apply(request.options);
  control.stage_started("compare");
  CompareResult r{isolate::read_memory_image(request.a), isolate::read_memory_image(request.b), {}, request.options};
  r.comparison = isolate::compare_memory(r.a, r.b, request.options);
  control.stage_finished("compare");
  return r;
}

}  // namespace rpl::workflow
