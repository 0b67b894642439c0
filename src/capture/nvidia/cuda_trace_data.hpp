#pragma once
// What the CUPTI tracer records, in plain types (no CUPTI headers), and how it becomes a rocpd
// database (DESIGN.md "NVIDIA trace mapping into rocpd"). Kept apart from the injection library so
// the mapping is tested on machines without a GPU.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace rpl::capture {

struct CudaDeviceInfo {
  uint32_t id = 0;               // CUPTI / CUDA device ordinal
  std::string name;              // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int registers_per_sm = 0;
  int shared_memory_per_sm = 0;
  int shared_memory_per_block_optin = 0;
  int l2_cache_bytes = 0;
  int clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
};

struct CudaKernelRecord {
  uint64_t start = 0, end = 0;
  uint32_t device = 0, context = 0, stream = 0, correlation = 0;
  int32_t grid[3] = {1, 1, 1};   // blocks
  int32_t block[3] = {1, 1, 1};  // threads
  int32_t static_shared = 0, dynamic_shared = 0;
  uint32_t local_memory_per_thread = 0;
  uint16_t registers_per_thread = 0;
  uint8_t launch_type = 0;       // CUpti_ActivityLaunchType: 0 regular, 1/2 cooperative
  uint8_t shmem_limit_config = 0;
  uint32_t shared_memory_executed = 0;  // the carveout the driver chose
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
  uint32_t name = 0;             // index into the kernel names (mangled), in first-seen order
};

struct CudaMemcpyRecord {
  uint64_t start = 0, end = 0, bytes = 0;
  uint32_t device = 0, stream = 0, correlation = 0;
  uint8_t copy_kind = 0;         // CUpti_ActivityMemcpyKind
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
};

struct CudaMemsetRecord {
  uint64_t start = 0, end = 0, bytes = 0;
  uint32_t device = 0, stream = 0, correlation = 0, value = 0;
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
};

struct CudaSyncRecord {
  uint64_t start = 0, end = 0;
  uint32_t type = 0;             // CUpti_ActivitySynchronizationType
  uint32_t stream = 0, correlation = 0;
  uint64_t event_sync_id = 0;    // the event recording waited for (event waits only)
};

/// A cudaEventRecord: CUPTI's CUDA_EVENT record.
struct CudaEventRecord {
  uint32_t stream = 0, correlation = 0;
  uint64_t event_sync_id = 0;    // this recording; the synchronizations that wait for it carry it too
};

/// A stream's creation: CUPTI's STREAM record.
struct CudaStreamRecord {
  uint32_t context = 0, stream = 0;
  uint8_t flag = 0;              // CUpti_ActivityStreamFlag: 1 blocking, 2 non-blocking, 3 the legacy default (NULL) stream
};

/// A host API call (trace level full: CUPTI's RUNTIME and DRIVER records).
struct CudaApiRecord {
  uint64_t start = 0, end = 0;
  uint32_t correlation = 0, thread = 0;
  std::string name;              // "cudaLaunchKernel", "cuMemAlloc_v2"
};

/// An edge of a CUDA Graph (CUPTI's GRAPHNODE_DEPENDENCY_CREATED callback, ids as CUPTI gives them).
struct CudaGraphDependency {
  uint32_t graph = 0;
  uint64_t from = 0, to = 0;
};

struct CudaTraceData {
  int64_t pid = 0, ppid = 0;
  std::string hostname, command;
  std::string trace_level;       // kernels, default or full (docs/dependencies.md); kept in rocpd_metadata
  std::string rank;              // of a multi-rank job (SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK); "" when none
  uint64_t start_ns = 0, end_ns = 0;
  std::vector<CudaDeviceInfo> devices;
  std::vector<std::string> names;
  std::vector<CudaKernelRecord> kernels;
  std::vector<CudaMemcpyRecord> memcpys;
  std::vector<CudaMemsetRecord> memsets;
  std::vector<CudaSyncRecord> syncs;
  std::vector<CudaEventRecord> events;
  std::vector<CudaStreamRecord> streams;
  std::vector<CudaGraphDependency> graph_dependencies;
  std::vector<CudaApiRecord> api_calls;
  uint64_t dropped_records = 0;
};

/// Writes a trace as it arrives, into one rocpd v3 database (one process, one GUID), atomically: a
/// temporary file renamed into place by finish(), removed if the writer is destroyed unfinished.
/// Records may come in batches, in any order.
class CudaTraceWriter {
 public:
  /// data's process fields (pid, hostname, command, start_ns) name the process.
  CudaTraceWriter(std::filesystem::path path, const CudaTraceData& process);
  ~CudaTraceWriter();
  CudaTraceWriter(const CudaTraceWriter&) = delete;
  CudaTraceWriter& operator=(const CudaTraceWriter&) = delete;

  /// Adds the records of batch: devices not yet written, then kernels, copies, memsets,
  /// synchronizations, event records, stream kinds, graph edges (docs/dependencies.md) and host
  /// API calls. batch.names are the kernel names first seen in this batch; a kernel's name indexes
  /// every name added so far, in order.
  void add(const CudaTraceData& batch);
  /// Commits, with the count of records CUPTI dropped and the process's end time (CUPTI's clock),
  /// and renames the file into place.
  void finish(uint64_t dropped_records, uint64_t end_ns);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The whole trace at once: kernels numbered in start order.
void write_cuda_trace(const std::filesystem::path& path, const CudaTraceData& data);

/// "sm_90" for compute capability 9.0.
std::string sm_arch_name(int cc_major, int cc_minor);

}  // namespace rpl::capture
