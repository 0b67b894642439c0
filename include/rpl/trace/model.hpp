#pragma once
// The trace model: what a profiled run recorded, vendor-neutral, in rocpd's terms.
// One Trace may merge several databases (one per run or process) and several GUIDs per database.
#include <array>
#include <memory>
#include <type_traits>
#include <utility>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::trace {

/// One database file read into the trace; a "run" of the profiled program.
struct Source {
  std::string path;
  std::vector<std::string> guids;  // processes recorded in it
  std::string trace_level;         // what rocm-perf's CUPTI tracer recorded (kernels, default, full); empty when not said
  std::optional<int> rank;         // the process's rank in a multi-rank job, where the tracer recorded one
  std::string host;                // the host it ran on (rocpd_info_node), where recorded
  // Its dispatches were timed one at a time and laid end to end here (Nsight Compute replays each
  // launch alone): their durations are measured, the gaps between them are not.
  bool laid_end_to_end = false;
};

struct Agent {
  int source = 0;
  std::string guid;
  int64_t id = 0;
  std::string type;          // "GPU", "CPU"
  std::string name;          // "gfx942", "sm_90"
  std::string vendor_name;   // "AMD", "NVIDIA"
  std::string product_name;  // "AMD Instinct MI300X"
  // From the agent's extdata JSON, when present.
  std::optional<int> compute_units;
  std::optional<int> simds_per_cu;
  std::optional<int> wave_size;
  std::optional<int> max_waves_per_cu;
  std::optional<double> max_clock_mhz;
  std::optional<int> lds_kib;
  /// Peak DRAM bandwidth from the memory clock and bus width (the CUPTI tracer's extdata).
  std::optional<double> dram_bytes_per_s;
};

struct KernelSymbol {
  int source = 0;
  std::string guid;
  int64_t id = 0;
  std::string mangled_name;  // kernel_name
  std::string display_name;  // demangled (or formatted) name
  int64_t arch_vgpr_count = 0;
  int64_t accum_vgpr_count = 0;
  int64_t sgpr_count = 0;
  int64_t group_segment_size = 0;    // static LDS / shared memory
  int64_t private_segment_size = 0;  // scratch / local memory per work-item
  int64_t kernarg_segment_size = 0;
  /// False where the trace's format records no register counts (rocprofv3 CSV before ROCm 6.4):
  /// the counts above are then 0, not measured, and occupancy cannot be computed.
  bool registers_known = true;
  /// False where the format records each dispatch's LDS as one total (rocprofv3 and legacy rocprof
  /// CSV, rocprof-compute, Kineto): group_segment_size is then 0, not the static part.
  bool lds_split_known = true;
  /// Barriers a block of it uses, where the trace records them (ncu's launch__barrier_count; CUDA
  /// kernels with named barriers use more than __syncthreads' one): they bound blocks per SM.
  std::optional<int> barriers;
  /// The name shown to people: display_name, else mangled_name.
  const std::string& name() const { return display_name.empty() ? mangled_name : display_name; }
};

/// How a dispatch was launched. Dispatches of one kernel nearly always share it, so the trace keeps
/// each distinct geometry once (Trace::geometries) and dispatches refer to it: a million
/// dispatches then take 56 MB, not 88.
struct DispatchGeometry {
  std::array<uint32_t, 3> workgroup{1, 1, 1};
  std::array<uint64_t, 3> grid{1, 1, 1};  // work-items, as AQL counts them (CUDA's can pass 2^32)
  uint32_t group_segment_size = 0;        // static + dynamic LDS of the dispatch
  uint32_t private_segment_size = 0;
  uint32_t block_size() const { return workgroup[0] * workgroup[1] * workgroup[2]; }
  bool operator==(const DispatchGeometry&) const = default;
};

/// One kernel dispatch. Trivially constructible, so a reader can size a list of millions without
/// touching its memory (DispatchList); build one by hand with `Dispatch d{}`.
struct Dispatch {
  int64_t id;
  int64_t start_ns;
  int64_t end_ns;
  int64_t queue_id;
  int64_t stream_id;
  int32_t symbol;     // index into Trace::symbols
  uint32_t geometry;  // index into Trace::geometries
  int16_t agent;      // index into Trace::agents, -1 if the agent is unknown
  int16_t source;     // index into Trace::sources
  /// The order in which the process enqueued it among its API calls (CUPTI's correlation id,
  /// rocprofiler's internal correlation id); 0 where the trace does not say. Read only for
  /// processes that recorded event operations, the only use the DAG has for it.
  int64_t correlation_id;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

/// Asks the kernel to back a large allocation with huge pages: first touching a million
/// dispatches otherwise costs as much as reading them. Only advice; harmless where unsupported.
void advise_huge_pages(void* data, std::size_t bytes) noexcept;

/// An allocator whose default construction leaves trivial elements uninitialized.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>::allocate(n);
    advise_huge_pages(p, n * sizeof(T));
    return p;
  }
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using DispatchList = std::vector<Dispatch, DefaultInitAllocator<Dispatch>>;

struct MemoryCopy {
  int32_t source = 0;
  std::string guid;  // the process that made it
  int64_t id = 0;
  int64_t correlation_id = 0;  // as Dispatch::correlation_id
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t size = 0;
  std::string name;
  int64_t src_agent_id = 0;
  int64_t dst_agent_id = 0;
  int64_t queue_id = 0;
  int64_t stream_id = 0;
};

/// A point in a process's stream order where it recorded an event, made a stream wait for one,
/// or made the host wait for the GPU (rocpd_event_operation; docs/dependencies.md).
enum class EventOperationKind : uint8_t {
  event_record,         // SIGNAL: the event completes when the stream's earlier work has
  stream_wait_event,    // WAIT: the stream's later work waits for the event
  event_synchronize,    // WAIT: the host waits for the event
  stream_synchronize,   // WAIT: the host waits for the stream's earlier work
  device_synchronize,   // WAIT: the host waits for all earlier work of the process
};

/// The operation's name in rocpd_event_operation.type_id: CUPTI's synchronization type names, plus
/// EVENT_RECORD ("CONTEXT_SYNCHRONIZE" for device_synchronize).
const char* event_operation_name(EventOperationKind kind);
/// The kind a name stands for; none for a name this reader does not know.
std::optional<EventOperationKind> event_operation_kind(std::string_view name);

struct EventOperation {
  int32_t source = 0;
  std::string guid;
  EventOperationKind kind = EventOperationKind::event_record;
  int64_t stream_id = 0;       // the stream recorded on, made to wait, or waited for
  int64_t event = 0;           // one recording of an event: a wait names the recording it waited for
  int64_t correlation_id = 0;  // its place among the process's API calls, as Dispatch::correlation_id
  int64_t start_ns = 0, end_ns = 0;  // the host call
};

/// How a CUDA stream orders itself against the legacy default stream (CUPTI's stream creation
/// flag; docs/dependencies.md). AMD streams are `unknown`: HIP's null stream is not modelled.
enum class StreamSync : uint8_t {
  unknown,
  legacy_default,  // the legacy default (NULL) stream: waits for, and holds back, every blocking stream
  blocking,        // created without cudaStreamNonBlocking (the per-thread default stream is one)
  non_blocking,
};

/// The stream's sync kind's name in rocpd_info_stream.extdata ("legacy_default", ...).
const char* stream_sync_name(StreamSync sync);
std::optional<StreamSync> stream_sync_kind(std::string_view name);

struct StreamInfo {
  int32_t source = 0;
  std::string guid;
  int64_t stream_id = 0;
  int64_t context = 0;  // streams of different contexts never synchronize implicitly
  StreamSync sync = StreamSync::unknown;
};

/// A dispatch or copy (a memset is one) that ran as a node of a CUDA Graph launch: its graph (the
/// instantiated one) and node, as CUPTI numbers them. The work of one launch shares its correlation id.
struct GraphNodeWork {
  bool copy = false;   // index is into Trace::memory_copies, else into Trace::dispatches
  uint32_t index = 0;
  uint32_t graph = 0;
  uint64_t node = 0;
};

/// An edge of a CUDA Graph: `to` runs after `from` in every launch of the graph.
struct GraphDependency {
  int32_t source = 0;  // graphs are numbered per process, and the CUPTI tracer writes one process per file
  uint32_t graph = 0;
  uint64_t from = 0, to = 0;
};

/// A host API call or marker range (rocpd_region: HIP, HSA or CUDA calls, ROCTx/NVTX ranges), read
/// only when asked (ReadOptions::host_calls).
struct HostCall {
  int32_t source = 0;
  std::string guid;
  int64_t tid = 0;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t name = 0;  // index into Trace::host_call_names
};

/// Hardware counter values of dispatches (rocpd_pmc_event, summed over instances as rocpd's
/// counters_collection view does).
struct CounterValue {
  uint32_t dispatch;  // index into Trace::dispatches
  uint32_t counter;   // index into Trace::counter_names
  double value;
};

/// What the tool that wrote the trace concluded of one dispatch: a rule of Nsight Compute's guided
/// analysis (the details page's rule rows), its words and the speedup ncu estimates for it.
struct ToolFinding {
  uint32_t dispatch;     // index into Trace::dispatches
  std::string section;   // ncu's section ("Occupancy")
  std::string rule;      // "TheoreticalOccupancy"
  std::string type;      // ncu's INF, OPT, WRN or ERR
  std::string text;
  std::string speedup_kind;               // "local" (of the kernel) or "global" (of the program); empty without one
  std::optional<double> speedup_percent;  // ncu's estimate
};

/// What a reader's warning says of a file whose GPU it cannot name (the agent's name is empty, or
/// its dispatches have none), so that a GPU given later (analyze --arch) can take its place.
inline constexpr const char* kGpuNotKnown = "the GPU is not known";

struct Trace {
  std::vector<Source> sources;
  std::vector<Agent> agents;
  std::vector<KernelSymbol> symbols;
  DispatchList dispatches;
  std::vector<DispatchGeometry> geometries;
  std::vector<MemoryCopy> memory_copies;
  std::vector<EventOperation> event_operations;
  std::vector<StreamInfo> streams;  // only the streams whose sync kind a database recorded
  std::vector<GraphNodeWork> graph_nodes;               // read only where graph dependencies were recorded
  std::vector<GraphDependency> graph_dependencies;
  std::vector<std::string> host_call_names;
  std::vector<HostCall> host_calls;
  std::vector<std::string> counter_names;
  std::vector<CounterValue> counter_values;  // by dispatch, then counter
  std::vector<ToolFinding> findings;         // by dispatch, in the tool's order
  std::vector<std::string> warnings;  // non-fatal oddities found while reading

  const DispatchGeometry& geometry(const Dispatch& d) const { return geometries[d.geometry]; }
};

}  // namespace rpl::trace
