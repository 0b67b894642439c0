#include <rpl/trace/rocpd_writer.hpp>

#include <map>
#include <set>

#include <SQLiteCpp/SQLiteCpp.h>
#include <SQLiteCpp/VariadicBind.h>
#include <sqlite3.h>

#include <rpl/core/error.hpp>

#include "rocpd_schema.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;

struct RocpdWriter::Impl {
  SQLite::Database db;
  SQLite::Transaction transaction;
  std::string suffix;
  RocpdProcessInfo process;
  RocpdWriterOptions options;
  int64_t node_id = 1;
  std::set<int64_t> queues, streams, code_objects;
  std::map<std::string, int64_t> strings;
  int64_t next_event_id = 1;
  // Prepared on first use: the tables do not exist when Impl is built.
  std::unique_ptr<SQLite::Statement> insert_dispatch;
  std::unique_ptr<SQLite::Statement> insert_event;

  // Everything goes in one transaction: fast, and an interrupted writer leaves no half-written rows.
  Impl(const fs::path& path, const RocpdProcessInfo& info, const std::string& table_suffix, RocpdWriterOptions opts)
      : db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLITE_OPEN_NOMUTEX),
        transaction(without_journal_if(db, !opts.journal)),
        suffix(table_suffix),
        process(info),
        options(opts) {}

  // Pragmas must run before the transaction begins.
  static SQLite::Database& without_journal_if(SQLite::Database& db, bool off) {
    if (off) db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;");
    return db;
  }


  std::string table(const char* name) const { return "\"rocpd_" + std::string(name) + suffix + "\""; }

  int64_t string_id(const std::string& text) {
    auto it = strings.find(text);
    if (it != strings.end()) return it->second;
    int64_t id = static_cast<int64_t>(strings.size()) + 1;
    insert("string", "id, string", id, text);
    strings.emplace(text, id);
    return id;
  }

  // Inserts one row with the values in column order.
  template <typename... Values>
  void insert(const char* name, const std::string& columns, const Values&... values) {
    std::string marks;
    for (size_t i = 0; i < sizeof...(Values); ++i) marks += i ? ",?" : "?";
    SQLite::Statement st(db, "INSERT INTO " + table(name) + " (" + columns + ") VALUES (" + marks + ")");
    SQLite::bind(st, values...);
    st.exec();
  }

  void ensure_queue_and_stream(int64_t queue_id, int64_t stream_id) {
    if (queues.insert(queue_id).second) {
      insert("info_queue", "id, nid, pid, name", queue_id, node_id, process.pid, "Queue " + std::to_string(queue_id));
    }
    if (streams.insert(stream_id).second) {
      insert("info_stream", "id, nid, pid, name", stream_id, node_id, process.pid, "Stream " + std::to_string(stream_id));
    }
  }
};

std::string RocpdWriter::table_suffix(const std::string& uuid) {
  if (uuid.empty()) return "";
  std::string s = "_" + uuid;
  for (char& c : s) {
    if (c == '-') c = '_';
  }
  return s;
}

RocpdWriter::RocpdWriter(const fs::path& path, const RocpdProcessInfo& process, bool add_to_existing,
                         RocpdWriterOptions options) {
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && !add_to_existing) fail(Errc::bad_input, "{}: already exists; refusing to overwrite it", path.string());
  if (!exists && add_to_existing) fail(Errc::bad_input, "{}: no such rocpd database to add a process to", path.string());
  const std::string suffix = table_suffix(process.uuid);
  try {
    impl_ = std::make_unique<Impl>(path, process, suffix, options);
    auto& db = impl_->db;
    db.exec(detail::rocpd_tables_sql(suffix, process.uuid));
    db.exec(detail::rocpd_views_sql(suffix));
    db.exec(detail::rocpd_metadata_sql(suffix, process.uuid, process.uuid));
    const int64_t node = impl_->node_id;
    impl_->insert("info_node", "id, hash, machine_id, system_name, hostname", node, node, "machine-" + process.hostname,
                  "Linux", process.hostname);
    impl_->insert("info_process", "id, nid, ppid, pid, init, fini, start, end, command", process.pid, node, process.ppid,
                  process.pid, process.start_ns, process.end_ns, process.start_ns, process.end_ns, process.command);
    impl_->insert("info_thread", "id, nid, ppid, pid, tid, name, start, end", process.pid, node, process.ppid, process.pid,
                  process.pid, "main", process.start_ns, process.end_ns);
  } catch (const SQLite::Exception& e) {
    fail(Errc::run_failed, "{}: cannot create rocpd database: {}", path.string(), e.what());
  }
}

RocpdWriter::~RocpdWriter() = default;

void RocpdWriter::add_agent(const Agent& agent, const nlohmann::json& extra_extdata) {
  nlohmann::json ext = nlohmann::json::object();
  if (agent.compute_units) ext["cu_count"] = *agent.compute_units;
  if (agent.simds_per_cu) ext["simd_per_cu"] = *agent.simds_per_cu;
  if (agent.wave_size) ext["wave_front_size"] = *agent.wave_size;
  if (agent.max_waves_per_cu) ext["max_waves_per_cu"] = *agent.max_waves_per_cu;
  if (agent.max_clock_mhz) ext["max_engine_clk_fcompute"] = *agent.max_clock_mhz;
  if (agent.lds_kib) ext["lds_size_in_kb"] = *agent.lds_kib;
  ext["name"] = agent.name;
  ext["product_name"] = agent.product_name;
  ext["vendor_name"] = agent.vendor_name;
  ext.update(extra_extdata);
  impl_->insert("info_agent",
                "id, nid, pid, type, absolute_index, logical_index, type_index, uuid, name, model_name, vendor_name,"
                " product_name, user_name, extdata",
                agent.id, impl_->node_id, impl_->process.pid, agent.type, agent.id, agent.id, agent.id, agent.id, agent.name,
                agent.name, agent.vendor_name, agent.product_name, agent.product_name, ext.dump());
}

void RocpdWriter::add_kernel_symbol(const KernelSymbol& symbol, const nlohmann::json& extdata) {
  const int64_t code_object_id = 1;
  if (impl_->code_objects.insert(code_object_id).second) {
    impl_->insert("info_code_object", "id, nid, pid, uri, storage_type", code_object_id, impl_->node_id, impl_->process.pid,
                  "memory://" + std::to_string(impl_->process.pid), "MEMORY");
  }
  impl_->insert("info_kernel_symbol",
                "id, nid, pid, code_object_id, kernel_name, display_name, kernel_object, kernarg_segment_size,"
                " kernarg_segment_alignment, group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count,"
                " accum_vgpr_count, extdata",
                symbol.id, impl_->node_id, impl_->process.pid, code_object_id, symbol.mangled_name, symbol.display_name,
                symbol.id * 64, symbol.kernarg_segment_size, 8, symbol.group_segment_size, symbol.private_segment_size,
                symbol.sgpr_count, symbol.arch_vgpr_count, symbol.accum_vgpr_count, extdata.dump());
}

void RocpdWriter::add_dispatch(const Dispatch& d, const DispatchGeometry& g, int64_t agent_id, int64_t kernel_id,
                               std::string_view extdata_json) {
  impl_->ensure_queue_and_stream(d.queue_id, d.stream_id);
  const int64_t category = impl_->string_id("KERNEL_DISPATCH");
  const int64_t region = impl_->string_id("");
  const int64_t event_id = impl_->options.event_rows ? impl_->next_event_id++ : 0;
  if (!impl_->insert_event) {
    impl_->insert_event = std::make_unique<SQLite::Statement>(
        impl_->db, "INSERT INTO " + impl_->table("event") +
                       " (id, category_id, stack_id, parent_stack_id, correlation_id) VALUES (?,?,?,?,?)");
    impl_->insert_dispatch = std::make_unique<SQLite::Statement>(
        impl_->db, "INSERT INTO " + impl_->table("kernel_dispatch") +
                       " (id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, end,"
                       " private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y,"
                       " workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id,"
                       " extdata) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  }
  if (event_id > 0) {
    auto& ev = *impl_->insert_event;
    ev.bind(1, event_id);
    ev.bind(2, category);
    const int64_t correlation = d.correlation_id != 0 ? d.correlation_id : d.id;
    ev.bind(3, correlation);
    ev.bind(4, correlation);
    ev.bind(5, correlation);
    ev.exec();
    ev.reset();
  }
  auto& st = *impl_->insert_dispatch;
  st.bind(1, d.id);
  st.bind(2, impl_->node_id);
  st.bind(3, impl_->process.pid);
  st.bind(4, impl_->process.pid);
  st.bind(5, agent_id);
  st.bind(6, kernel_id);
  st.bind(7, d.id);
  st.bind(8, d.queue_id);
  st.bind(9, d.stream_id);
  st.bind(10, d.start_ns);
  st.bind(11, d.end_ns);
  st.bind(12, static_cast<int64_t>(g.private_segment_size));
  st.bind(13, static_cast<int64_t>(g.group_segment_size));
  for (int i = 0; i < 3; ++i) st.bind(14 + i, static_cast<int64_t>(g.workgroup[i]));
  for (int i = 0; i < 3; ++i) st.bind(17 + i, static_cast<int64_t>(g.grid[i]));
  st.bind(20, region);
  if (event_id > 0) {
    st.bind(21, event_id);
  } else {
    st.bind(21);
  }
  st.bind(22, extdata_json.data(), static_cast<int>(extdata_json.size()));
  st.exec();
  st.reset();
}

void RocpdWriter::add_memory_copy(const MemoryCopy& c, const nlohmann::json& extdata_in) {
  impl_->ensure_queue_and_stream(c.queue_id, c.stream_id);
  nlohmann::json extdata = extdata_in;
  if (c.correlation_id != 0) extdata["correlation_id"] = c.correlation_id;
  impl_->insert("memory_copy",
                "id, nid, pid, tid, start, end, name_id, dst_agent_id, src_agent_id, size, queue_id, stream_id, extdata",
                c.id, impl_->node_id, impl_->process.pid, impl_->process.pid, c.start_ns, c.end_ns, impl_->string_id(c.name),
                c.dst_agent_id, c.src_agent_id, c.size, c.queue_id, c.stream_id, extdata.dump());
}

void RocpdWriter::add_event_operation(const EventOperation& op) {
  const bool on_stream = op.kind == EventOperationKind::event_record ||
                         op.kind == EventOperationKind::stream_wait_event ||
                         op.kind == EventOperationKind::stream_synchronize;
  if (on_stream) impl_->ensure_queue_and_stream(op.stream_id, op.stream_id);
  const bool signal = op.kind == EventOperationKind::event_record;
  impl_->insert("event_operation", "nid, pid, tid, event_obj, type_id, issue_id, queue_id, stream_id, start, end, type",
                impl_->node_id, impl_->process.pid, impl_->process.pid, op.event,
                impl_->string_id(event_operation_name(op.kind)), op.correlation_id, op.stream_id, op.stream_id,
                op.start_ns, op.end_ns, signal ? "SIGNAL" : "WAIT");
}

void RocpdWriter::add_stream_info(const StreamInfo& stream) {
  const nlohmann::json extdata = {{"sync", stream_sync_name(stream.sync)}, {"context", stream.context}};
  impl_->streams.insert(stream.stream_id);
  SQLite::Statement st(impl_->db, "INSERT INTO " + impl_->table("info_stream") +
                                      " (id, nid, pid, name, extdata) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
                                      " extdata = excluded.extdata");
  SQLite::bind(st, stream.stream_id, impl_->node_id, impl_->process.pid, "Stream " + std::to_string(stream.stream_id),
               extdata.dump());
  st.exec();
}

void RocpdWriter::add_graph_dependency(const GraphDependency& d) {
  add_metadata("rpl_graph_dependency", nlohmann::json{{"graph", d.graph}, {"from", d.from}, {"to", d.to}}.dump());
}

void RocpdWriter::add_region(const std::string& name, int64_t start_ns, int64_t end_ns, const nlohmann::json& extdata) {
  impl_->insert("region", "nid, pid, tid, start, end, name_id, extdata", impl_->node_id, impl_->process.pid,
                impl_->process.pid, start_ns, end_ns, impl_->string_id(name), extdata.dump());
}

void RocpdWriter::add_metadata(const std::string& tag, const std::string& value) {
  impl_->insert("metadata", "tag, value", tag, value);
}

void RocpdWriter::set_process_end(int64_t end_ns) {
  const int64_t pid = impl_->process.pid;
  impl_->db.exec(fmt::format("UPDATE {} SET fini = {}, end = {} WHERE id = {}", impl_->table("info_process"), end_ns,
                             end_ns, pid));
  impl_->db.exec(fmt::format("UPDATE {} SET end = {} WHERE id = {}", impl_->table("info_thread"), end_ns, pid));
  impl_->process.end_ns = end_ns;
}

void RocpdWriter::finish() {
  try {
    impl_->transaction.commit();
  } catch (const SQLite::Exception& e) {
    fail(Errc::run_failed, "cannot commit rocpd database: {}", e.what());
  }
}

void add_rocpd_metadata(const std::filesystem::path& path, const std::string& tag, const std::string& value) {
  try {
    SQLite::Database db(path.string(), SQLite::OPEN_READWRITE);
    std::vector<std::string> tables;
    SQLite::Statement list(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'rocpd_metadata*'");
    while (list.executeStep()) tables.push_back(list.getColumn(0).getString());
    if (tables.empty()) fail(Errc::bad_input, "{}: no rocpd_metadata table", path.string());
    SQLite::Transaction transaction(db);
    for (const auto& table : tables) {
      SQLite::Statement insert(db, "INSERT INTO \"" + table + "\" (tag, value) VALUES (?, ?)");
      SQLite::bind(insert, tag, value);
      insert.exec();
    }
    transaction.commit();
  } catch (const SQLite::Exception& e) {
    fail(Errc::bad_input, "{}: cannot add to its metadata: {}", path.string(), e.what());
  }
}

}  // namespace rpl::trace
