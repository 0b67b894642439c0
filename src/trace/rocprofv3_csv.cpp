// rocprofv3's CSV output. Layouts (columns are found by name, so order never matters):
//   kernel_trace.csv: ROCm 6.2 (16 and 18 columns: Private_Segment_Size, Group_Segment_Size, no
//   register counts), 6.3 (19: Stream_Id), 6.4 and 7.x (22: LDS_Block_Size, Scratch_Size,
//   VGPR_Count, Accum_VGPR_Count, SGPR_Count), and rocpd's CSV conversion (Guid first, Vgpr_Count).
//   Agent_Id is "Agent N" (7.x: N is the agent's Logical_Node_Id in agent_info.csv) or N (6.2:
//   its Node_Id). Grid sizes are in work-items, timestamps in nanoseconds.
//   hip_api_trace.csv: the HIP calls, without their arguments: hipDeviceSynchronize orders work.
//   marker_api_trace.csv (ROCTx ranges) and hsa_api_trace.csv, of the same columns: host calls for export.
//   scratch_memory_trace.csv (Kind, Operation, Agent_Id, Queue_Id, Thread_Id, Alloc_Flags, times):
//   the runtime growing a queue's scratch memory, which holds the queue back; said in a warning.
//   counter_collection.csv: one row per dispatch and counter (Dispatch_Id, Counter_Name,
//   Counter_Value), summed over a dispatch's rows as rocpd's counters_collection view does. A run
//   of counters alone (`rocprofv3 --pmc` without --kernel-trace) has no kernel_trace.csv: its
//   dispatches are then read from the counter rows (one-dimensional Grid_Size and Workgroup_Size,
//   and from ROCm 7 the timestamps of the dispatch while its counters were collected).
#include <rpl/trace/amd_profiler_files.hpp>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <rpl/core/error.hpp>

#include "csv_rows.hpp"
#include "dispatch_rows.hpp"
#include "geometry_table.hpp"
#include "host_call_names.hpp"

namespace rpl::trace {
namespace fs = std::filesystem;
using detail::csv_int;
using detail::csv_number;
using detail::CsvColumns;
using detail::CsvRow;

namespace {

constexpr std::string_view kKernelTrace = "kernel_trace.csv", kCounters = "counter_collection.csv";

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

size_t need(const CsvColumns& cols, std::initializer_list<std::string_view> names, const fs::path& file, std::string_view expected) {
  if (auto i = cols.find_any(names)) return *i;
  fail(Errc::bad_input, "{}: no column {} (expected a rocprofv3 {}: {}; found {})", file.string(), *names.begin(), file.filename().string(),
       expected, joined(cols.names()));
}

class RunReader {
 public:
  // file is a kernel_trace.csv, or the counter_collection.csv of a run of counters alone.
  RunReader(Trace& trace, const fs::path& kernel_trace, const ReadOptions& options) : trace_(trace), file_(kernel_trace), options_(options) {
    const std::string name = kernel_trace.filename().string();
    counters_only_ = name.ends_with(kCounters);
    prefix_ = name.substr(0, name.size() - std::min(name.size(), (counters_only_ ? kCounters : kKernelTrace).size()));
    // The process: the pid that rocprofv3 puts before each file name (12345_kernel_trace.csv).
    guid_ = prefix_.empty() ? kernel_trace.parent_path().filename().string() : prefix_.substr(0, prefix_.size() - (prefix_.back() == '_'));
    source_ = static_cast<int16_t>(trace.sources.size());
    if (trace.sources.size() >= INT16_MAX) fail(Errc::bad_input, "{}: too many trace files", kernel_trace.string());
    Source s;
    s.path = kernel_trace.string();
    s.guids = {guid_};
    trace.sources.push_back(std::move(s));
    geometry_index_ = detail::index_of(trace.geometries);
  }

  void read() {
    const fs::path agents = sibling("agent_info.csv");
    std::error_code ec;
    if (fs::exists(agents, ec)) {
      read_agents(agents);
    } else {
      trace_.warnings.push_back(fmt::format("{}: no {} beside it: {} (no occupancy, no peaks)", file_.string(),
                                            agents.filename().string(), kGpuNotKnown));
    }
    const size_t first_dispatch = trace_.dispatches.size();
    read_dispatches();
    if (const auto copies = sibling("memory_copy_trace.csv"); fs::exists(copies, ec)) read_copies(copies);
    if (const auto counters = sibling(kCounters); fs::exists(counters, ec)) read_counters(counters, first_dispatch);
    if (options_.host_calls) {
      for (const char* api : {"marker_api_trace.csv", "hsa_api_trace.csv"}) {
        if (const auto calls = sibling(api); fs::exists(calls, ec)) read_api_calls(calls);
      }
    }
    if (const auto scratch = sibling("scratch_memory_trace.csv"); fs::exists(scratch, ec)) read_scratch(scratch);
    if (const auto calls = sibling("hip_api_trace.csv"); fs::exists(calls, ec)) {
      read_api_calls(calls);
      trace_.warnings.push_back(fmt::format("{}: its HIP API trace records no call's arguments (which event, which stream): the "
                                            "dependency graph has stream order, device synchronizations and timestamps only",
                                            file_.string()));
    } else {
      trace_.warnings.push_back(fmt::format("{}: no HIP API trace beside it: the dependency graph has stream order and timestamps only",
                                            file_.string()));
    }
  }

 private:
  fs::path sibling(std::string_view name) const { return file_.parent_path() / (prefix_ + std::string(name)); }

  void read_agents(const fs::path& file) {
    detail::read_csv_rows(file, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        cols_.emplace(row);
        need(*cols_, {"Node_Id"}, file, "agent_info.csv (Node_Id, Logical_Node_Id, Agent_Type, Name, ...)");
        return true;
      }
      auto text = [&](std::string_view name) {
        auto i = cols_->find(name);
        return i ? std::string(row[*i]) : std::string();
      };
      auto number = [&](std::string_view name) -> std::optional<int> {
        auto i = cols_->find(name);
        auto v = i ? csv_int(row[*i]) : std::nullopt;
        return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
      };
      Agent a;
      a.source = source_;
      a.guid = guid_;
      a.id = number("Node_Id").value_or(0);
      a.type = text("Agent_Type");
      if (a.type.empty()) a.type = "GPU";
      a.name = text("Name");
      a.vendor_name = text("Vendor_Name");
      a.product_name = text("Product_Name");
      a.compute_units = number("Cu_Count");
      a.simds_per_cu = number("Simd_Per_Cu");
      a.wave_size = number("Wave_Front_Size");
      a.max_waves_per_cu = number("Max_Waves_Per_Cu");
      if (auto i = cols_->find("Max_Engine_Clk_Fcompute")) a.max_clock_mhz = csv_number(row[*i]);
      a.lds_kib = number("Lds_Size_In_Kb");
      const auto index = static_cast<int16_t>(trace_.agents.size());
      by_node_[a.id] = index;
      if (auto logical = number("Logical_Node_Id")) by_logical_[*logical] = index;
      trace_.agents.push_back(std::move(a));
      return true;
    });
    cols_.reset();
  }

  // "Agent 4" names the Logical_Node_Id, a bare 4 (ROCm 6.2) the Node_Id; either falls back to the other.
  int16_t agent_of(std::string_view field) {
    if (field == last_agent_field_ && last_agent_ >= 0) return last_agent_;  // consecutive rows nearly always share it
    last_agent_field_.assign(field);
    last_agent_ = find_agent(field);
    return last_agent_;
  }

  int16_t find_agent(std::string_view field) {
    const bool named = field.rfind("Agent ", 0) == 0;
    const auto n = csv_int(named ? field.substr(6) : field);
    if (!n) return -1;
    const auto& first = named ? by_logical_ : by_node_;
    const auto& second = named ? by_node_ : by_logical_;
    if (auto it = first.find(*n); it != first.end()) return it->second;
    if (auto it = second.find(*n); it != second.end()) return it->second;
    if (by_node_.empty()) {  // no agent_info.csv: an agent known only by its number
      Agent a;
      a.source = source_;
      a.guid = guid_;
      a.id = *n;
      a.type = "GPU";
      by_node_[*n] = by_logical_[*n] = static_cast<int16_t>(trace_.agents.size());
      trace_.agents.push_back(std::move(a));
      return by_node_[*n];
    }
    return -1;
  }

  int64_t agent_id_of(std::string_view field) {
    const int16_t a = agent_of(field);
    return a >= 0 ? trace_.agents[static_cast<size_t>(a)].id : -1;
  }

  // The dispatch columns of a kernel trace, or of the counter rows of a run of counters alone (a row
  // per dispatch and counter; the grid and workgroup as totals, the times from ROCm 7's layout).
  struct DispatchColumns {
    size_t name = 0, start = 0, end = 0, agent = 0;
    std::optional<size_t> kernel_id, dispatch_id, queue, stream, correlation, lds, scratch;
    std::array<std::optional<size_t>, 3> grid, block;  // Y and Z absent from counter rows
    detail::RegisterColumns registers;
  };

  DispatchColumns kernel_trace_columns(const CsvColumns& cols) const {
    const std::string_view expected = "Kind, Agent_Id, Queue_Id, Kernel_Id, Kernel_Name, Start_Timestamp, End_Timestamp, Workgroup_Size_X..Z, Grid_Size_X..Z, ...";
    DispatchColumns c;
    c.name = need(cols, {"Kernel_Name"}, file_, expected);
    c.start = need(cols, {"Start_Timestamp"}, file_, expected);
    c.end = need(cols, {"End_Timestamp"}, file_, expected);
    c.agent = need(cols, {"Agent_Id"}, file_, expected);
    const char* axes[] = {"X", "Y", "Z"};
    for (int i = 0; i < 3; ++i) {
      c.grid[i] = need(cols, {std::string("Grid_Size_") + axes[i]}, file_, expected);
      c.block[i] = need(cols, {std::string("Workgroup_Size_") + axes[i]}, file_, expected);
    }
    c.dispatch_id = cols.find("Dispatch_Id");
    c.stream = cols.find("Stream_Id");
    return c;
  }

  DispatchColumns counter_row_columns(const CsvColumns& cols) const {
    const std::string_view expected = "Correlation_Id, Dispatch_Id, Agent_Id, ..., Grid_Size, Kernel_Name, Workgroup_Size, ..., Counter_Name, Counter_Value";
    DispatchColumns c;
    c.dispatch_id = need(cols, {"Dispatch_Id"}, file_, expected);
    c.name = need(cols, {"Kernel_Name"}, file_, expected);
    c.agent = need(cols, {"Agent_Id"}, file_, expected);
    c.grid[0] = need(cols, {"Grid_Size"}, file_, expected);
    c.block[0] = need(cols, {"Workgroup_Size"}, file_, expected);
    const auto start = cols.find("Start_Timestamp"), end = cols.find("End_Timestamp");
    if (!start || !end) {
      fail(Errc::bad_input, "{}: a run of counters alone whose layout (before ROCm 7) records no times: no kernel time to analyze; "
                            "profile with --kernel-trace too", file_.string());
    }
    c.start = *start;
    c.end = *end;
    c.stream = cols.find("Queue_Id");  // no streams recorded: a queue stands for one
    return c;
  }

  // The dispatches of file_: a kernel trace's rows, or a run of counters alone's (the first row of each dispatch).
  void read_dispatches() {
    DispatchColumns c;
    detail::GeometryTable geometries(trace_.geometries, &geometry_index_);
    // A counter file holds a row per counter: its row count says nothing of its dispatches.
    if (!counters_only_) trace_.dispatches.reserve(trace_.dispatches.size() + detail::estimated_rows(file_));
    std::unordered_set<int64_t> seen;
    detail::read_csv_rows(file_, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        CsvColumns cols(row);
        c = counters_only_ ? counter_row_columns(cols) : kernel_trace_columns(cols);
        c.kernel_id = cols.find("Kernel_Id");
        c.queue = cols.find("Queue_Id");
        c.correlation = cols.find("Correlation_Id");
        c.lds = cols.find_any({"LDS_Block_Size", "Group_Segment_Size"});
        c.scratch = cols.find_any({"Scratch_Size", "Private_Segment_Size"});
        c.registers = {cols.find("VGPR_Count"), cols.find("Accum_VGPR_Count"), cols.find("SGPR_Count")};
        return true;
      }
      const detail::CsvIntegers field(file_, row, r);
      Dispatch d{};
      d.id = c.dispatch_id ? field.required(*c.dispatch_id, "Dispatch_Id") : static_cast<int64_t>(r);
      if (counters_only_ && !seen.insert(d.id).second) return true;  // a row of another counter of that dispatch
      d.start_ns = field.required(c.start, "Start_Timestamp");
      d.end_ns = field.required(c.end, "End_Timestamp");
      d.queue_id = field.optional(c.queue);
      d.stream_id = field.optional(c.stream);
      d.correlation_id = field.optional(c.correlation);
      d.agent = agent_of(row[c.agent]);
      d.source = source_;
      d.symbol = symbol_of(row, c.name, c.kernel_id, [&](KernelSymbol& s) { c.registers.fill(s, field); });
      DispatchGeometry g;
      for (int i = 0; i < 3; ++i) {
        g.grid[i] = c.grid[i] ? static_cast<uint64_t>(field.required(*c.grid[i], "Grid_Size")) : 1;
        g.workgroup[i] = c.block[i] ? static_cast<uint32_t>(field.required(*c.block[i], "Workgroup_Size")) : 1;
      }
      g.group_segment_size = static_cast<uint32_t>(field.optional(c.lds));
      g.private_segment_size = static_cast<uint32_t>(field.optional(c.scratch));
      d.geometry = geometries.intern(g);
      trace_.dispatches.push_back(d);
      return true;
    });
    if (counters_only_) {
      trace_.warnings.push_back(fmt::format("{}: a run of counters alone (no kernel trace): each dispatch's time is its time while its "
                                            "counters were collected, its grid one-dimensional, and there are no streams", file_.string()));
    } else if (!c.registers.vgpr) {
      trace_.warnings.push_back(fmt::format("{}: this layout (before ROCm 6.4) records no register counts: occupancy is not computed",
                                            file_.string()));
    }
  }

  template <typename Fill>
  int32_t symbol_of(const CsvRow& row, size_t name, const std::optional<size_t>& kernel_id, Fill fill) {
    // By Kernel_Id where the layout has one (no string to build per row), else by name.
    int64_t id = 0;
    const bool by_id = kernel_id && csv_int(row[*kernel_id]).has_value();
    if (by_id) {
      id = *csv_int(row[*kernel_id]);
      if (auto it = symbols_by_id_.find(id); it != symbols_by_id_.end()) return it->second;
    } else if (auto it = symbols_by_name_.find(std::string(row[name])); it != symbols_by_name_.end()) {
      return it->second;
    }
    KernelSymbol s;
    s.source = source_;
    s.guid = guid_;
    s.id = by_id ? id : static_cast<int64_t>(trace_.symbols.size());
    s.mangled_name = std::string(row[name]);  // rocprofv3 writes the demangled name
    fill(s);
    const auto index = static_cast<int32_t>(trace_.symbols.size());
    if (by_id) symbols_by_id_.emplace(id, index);
    else symbols_by_name_.emplace(s.mangled_name, index);
    trace_.symbols.push_back(std::move(s));
    return index;
  }

  void read_copies(const fs::path& file) {
    struct Columns {
      size_t start, end;
      std::optional<size_t> direction, src, dst, correlation, stream, bytes;
    } c{};
    detail::read_csv_rows(file, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        CsvColumns cols(row);
        const std::string_view expected = "Kind, Direction, Source_Agent_Id, Destination_Agent_Id, Correlation_Id, Start_Timestamp, End_Timestamp";
        c.start = need(cols, {"Start_Timestamp"}, file, expected);
        c.end = need(cols, {"End_Timestamp"}, file, expected);
        c.direction = cols.find("Direction");
        c.src = cols.find("Source_Agent_Id");
        c.dst = cols.find("Destination_Agent_Id");
        c.correlation = cols.find("Correlation_Id");
        c.stream = cols.find("Stream_Id");
        c.bytes = cols.find_any({"Copy_Bytes", "Bytes", "Size"});
        return true;
      }
      MemoryCopy m;
      m.source = source_;
      m.guid = guid_;
      m.id = static_cast<int64_t>(r);
      m.start_ns = csv_int(row[c.start]).value_or(0);
      m.end_ns = csv_int(row[c.end]).value_or(0);
      if (c.direction) m.name = std::string(row[*c.direction]);
      if (c.src) m.src_agent_id = agent_id_of(row[*c.src]);
      if (c.dst) m.dst_agent_id = agent_id_of(row[*c.dst]);
      if (c.correlation) m.correlation_id = csv_int(row[*c.correlation]).value_or(0);
      if (c.stream) m.stream_id = csv_int(row[*c.stream]).value_or(0);
      if (c.bytes) m.size = csv_int(row[*c.bytes]).value_or(0);
      trace_.memory_copies.push_back(std::move(m));
      return true;
    });
  }

  // hip_api_trace.csv (Domain, Function, Process_Id, Thread_Id, Correlation_Id, Start_Timestamp,
  // End_Timestamp): hipDeviceSynchronize is a host wait the DAG orders work by (its correlation id
  // is in the kernel trace's space); with host_calls, every call, for export.
  void add_host_call(std::string_view name, int64_t tid, int64_t start_ns, int64_t end_ns) {
    trace_.host_calls.push_back({source_, guid_, tid, start_ns, end_ns, host_names_.intern(name)});
  }

  // Scratch allocations: their count and time in a warning (a kernel's spills or large private
  // segment make the runtime grow scratch while the queue waits); host calls for export when asked.
  void read_scratch(const fs::path& file) {
    size_t operation = 0, start = 0, end = 0;
    std::optional<size_t> thread;
    size_t allocations = 0;
    int64_t allocating_ns = 0;
    detail::read_csv_rows(file, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        CsvColumns cols(row);
        const std::string_view expected = "Kind, Operation, Agent_Id, Queue_Id, Thread_Id, Alloc_Flags, Start_Timestamp, End_Timestamp";
        operation = need(cols, {"Operation"}, file, expected);
        start = need(cols, {"Start_Timestamp"}, file, expected);
        end = need(cols, {"End_Timestamp"}, file, expected);
        thread = cols.find("Thread_Id");
        return true;
      }
      const auto begin_ns = csv_int(row[start]).value_or(0), end_ns = csv_int(row[end]).value_or(0);
      if (row[operation] == "SCRATCH_MEMORY_ALLOC") {
        ++allocations;
        allocating_ns += std::max<int64_t>(0, end_ns - begin_ns);
      }
      if (options_.host_calls) {
        add_host_call(row[operation], thread ? csv_int(row[*thread]).value_or(0) : 0, begin_ns, end_ns);
      }
      return true;
    });
    if (allocations > 0) {
      trace_.warnings.push_back(fmt::format("{}: the runtime grew scratch memory {} times, {:.3f} ms in all, holding its queue back "
                                            "(kernels' spills or large private segments: see scratch_bytes)",
                                            file_.string(), allocations, static_cast<double>(allocating_ns) / 1e6));
    }
  }

  // An API trace (HIP, HSA, markers): a host call per row with options.host_calls; hipDeviceSynchronize
  // as a host wait.
  void read_api_calls(const fs::path& file) {
    size_t function = 0, start = 0, end = 0;
    std::optional<size_t> thread, correlation;
    detail::read_csv_rows(file, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        CsvColumns cols(row);
        const std::string_view expected = "Domain, Function, Process_Id, Thread_Id, Correlation_Id, Start_Timestamp, End_Timestamp";
        function = need(cols, {"Function"}, file, expected);
        start = need(cols, {"Start_Timestamp"}, file, expected);
        end = need(cols, {"End_Timestamp"}, file, expected);
        thread = cols.find("Thread_Id");
        correlation = cols.find("Correlation_Id");
        return true;
      }
      const auto begin_ns = csv_int(row[start]).value_or(0), end_ns = csv_int(row[end]).value_or(0);
      if (row[function] == "hipDeviceSynchronize") {
        const int64_t correlation_id = correlation ? csv_int(row[*correlation]).value_or(0) : 0;
        trace_.event_operations.push_back(detail::device_synchronization(source_, guid_, correlation_id, begin_ns, end_ns));
      }
      if (options_.host_calls) {
        add_host_call(row[function], thread ? csv_int(row[*thread]).value_or(0) : 0, begin_ns, end_ns);
      }
      return true;
    });
  }

  void read_counters(const fs::path& file, size_t first_dispatch) {
    std::unordered_map<int64_t, uint32_t> dispatch_index;  // Dispatch_Id -> index in trace_.dispatches
    for (size_t i = first_dispatch; i < trace_.dispatches.size(); ++i) dispatch_index[trace_.dispatches[i].id] = static_cast<uint32_t>(i);
    size_t dispatch = 0, counter = 0, value = 0;
    std::map<std::pair<uint32_t, uint32_t>, double> sums;  // (dispatch, counter): summed over its rows
    std::unordered_map<std::string, uint32_t> names;
    for (uint32_t i = 0; i < trace_.counter_names.size(); ++i) names.emplace(trace_.counter_names[i], i);
    detail::read_csv_rows(file, [&](const CsvRow& row, size_t r) {
      if (r == 0) {
        CsvColumns cols(row);
        const std::string_view expected = "Correlation_Id, Dispatch_Id, Agent_Id, ..., Counter_Name, Counter_Value";
        dispatch = need(cols, {"Dispatch_Id"}, file, expected);
        counter = need(cols, {"Counter_Name"}, file, expected);
        value = need(cols, {"Counter_Value"}, file, expected);
        return true;
      }
      const auto id = csv_int(row[dispatch]);
      const auto it = id ? dispatch_index.find(*id) : dispatch_index.end();
      const auto v = csv_number(row[value]);
      if (it == dispatch_index.end() || !v) return true;  // a dispatch the kernel trace lacks
      auto [n, added] = names.try_emplace(std::string(row[counter]), static_cast<uint32_t>(trace_.counter_names.size()));
      if (added) trace_.counter_names.push_back(n->first);
      sums[{it->second, n->second}] += *v;
      return true;
    });
    for (const auto& [key, v] : sums) trace_.counter_values.push_back({key.first, key.second, v});
  }

  Trace& trace_;
  fs::path file_;
  const ReadOptions& options_;
  std::string prefix_, guid_;
  bool counters_only_ = false;
  int16_t source_ = 0;
  std::optional<CsvColumns> cols_;
  std::map<int64_t, int16_t> by_node_, by_logical_;
  std::string last_agent_field_;
  int16_t last_agent_ = -1;
  std::unordered_map<int64_t, int32_t> symbols_by_id_;
  std::unordered_map<std::string, int32_t> symbols_by_name_;
  detail::HostCallNames host_names_{trace_};
  detail::GeometryIndex geometry_index_;
};

}  // namespace

fs::path rocprofv3_run_file(const fs::path& file) {
  const std::string name = file.filename().string();
  if (!name.ends_with(kCounters)) return file;
  const auto kernel_trace = file.parent_path() / (name.substr(0, name.size() - kCounters.size()) + std::string(kKernelTrace));
  std::error_code ec;
  return fs::exists(kernel_trace, ec) ? kernel_trace : file;
}

void read_rocprofv3_csv_into(Trace& trace, const fs::path& file, const ReadOptions& options) {
  RunReader(trace, rocprofv3_run_file(file), options).read();
}

}  // namespace rpl::trace
