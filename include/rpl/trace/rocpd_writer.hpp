#pragma once
// Writes rocpd v3 databases (one process, one GUID per writer) in the layout rocprofv3 uses.
// Used by the tests to build realistic traces and by the NVIDIA tracer.
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <rpl/trace/model.hpp>

namespace rpl::trace {

struct RocpdProcessInfo {
  std::string uuid;  // hyphenated; tables get "_" + uuid with '-' -> '_'
  int64_t pid = 1;
  int64_t ppid = 0;
  std::string hostname = "localhost";
  std::string command;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct RocpdWriterOptions {
  /// One rocpd_event row per dispatch, as rocprofv3 writes; its stack_id holds the dispatch's
  /// correlation id (else its id). Without them, a writer keeps the correlation id in extdata.
  bool event_rows = true;
  /// A rollback journal. A writer whose file is renamed into place only when finished (the
  /// tracer) has no use for one.
  bool journal = true;
};

class RocpdWriter {
 public:
  /// Creates a new database at path; Error(bad_input) if the file exists already. With
  /// add_to_existing, adds this process's table set to an existing rocpd file instead (a file
  /// holding several processes, as a merged run does).
  RocpdWriter(const std::filesystem::path& path, const RocpdProcessInfo& process, bool add_to_existing = false,
              RocpdWriterOptions options = {});
  ~RocpdWriter();
  RocpdWriter(const RocpdWriter&) = delete;
  RocpdWriter& operator=(const RocpdWriter&) = delete;

  /// Agent row; its optional properties go into extdata under rocprofv3's key names, merged with extra.
  void add_agent(const Agent& agent, const nlohmann::json& extra_extdata = nlohmann::json::object());
  void add_kernel_symbol(const KernelSymbol& symbol, const nlohmann::json& extdata = nlohmann::json::object());
  /// Dispatch row; agent_id and kernel_id are the rocpd ids (Agent::id, KernelSymbol::id).
  /// extdata is a serialized JSON object: writers of millions of rows format it themselves.
  void add_dispatch(const Dispatch& dispatch, const DispatchGeometry& geometry, int64_t agent_id, int64_t kernel_id,
                    std::string_view extdata_json = "{}");
  void add_memory_copy(const MemoryCopy& copy, const nlohmann::json& extdata = nlohmann::json::object());
  /// An event record, stream wait or host synchronization (rocpd_event_operation, as
  /// docs/dependencies.md maps it).
  void add_event_operation(const EventOperation& op);
  /// Records a stream's sync kind and context in its rocpd_info_stream row's extdata
  /// ({"sync": "legacy_default", "context": 1}; docs/dependencies.md).
  void add_stream_info(const StreamInfo& stream);
  /// Records an edge of a CUDA Graph as a rocpd_metadata row, tag "rpl_graph_dependency", value
  /// {"graph": G, "from": NODE, "to": NODE} (docs/dependencies.md).
  void add_graph_dependency(const GraphDependency& dependency);
  /// A host-side interval (rocpd_region), e.g. a synchronization.
  void add_region(const std::string& name, int64_t start_ns, int64_t end_ns,
                  const nlohmann::json& extdata = nlohmann::json::object());
  /// A (tag, value) row of rocpd_metadata.
  void add_metadata(const std::string& tag, const std::string& value);
  /// The process's end time, for a writer that starts before the process ends (the NVIDIA tracer).
  void set_process_end(int64_t end_ns);

  /// Commits everything. The destructor rolls back what was not committed.
  void finish();

  /// The table suffix of a UUID: "_" + uuid with '-' replaced by '_' ("" for an empty uuid).
  static std::string table_suffix(const std::string& uuid);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Adds a (tag, value) row to each rocpd_metadata table of a database another tool wrote (its
/// processes' tables, suffixed or not). Error(bad_input) when it has none or cannot be written.
void add_rocpd_metadata(const std::filesystem::path& db, const std::string& tag, const std::string& value);

}  // namespace rpl::trace
