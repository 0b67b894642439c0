#include "trace_scenarios.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include <rpl/core/demangle.hpp>
#include <rpl/core/error.hpp>
#include <rpl/trace/rocpd_counters.hpp>
#include <rpl/trace/rocpd_writer.hpp>

namespace rpl::tools {
namespace {

using trace::Agent;
using trace::Dispatch;
using trace::KernelSymbol;
using trace::RocpdWriter;

// Deterministic jitter: a small LCG, so every build of a scenario has the same bytes of data.
class Jitter {
 public:
  explicit Jitter(uint64_t seed) : state_(seed * 6364136223846793005ULL + 1442695040888963407ULL) {}
  // A value in [-1, 1).
  double next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state_ >> 33) % 2000000) / 1000000.0 - 1.0;
  }

 private:
  uint64_t state_;
};

std::string uuid_for(const std::string& scenario, int run, int process) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : scenario) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  h ^= static_cast<uint64_t>(run) * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(process);
  return fmt::format("{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}", static_cast<uint32_t>(h >> 32), static_cast<uint16_t>(h >> 16),
                     static_cast<uint16_t>(h) & 0xfff, 0x8000 | (static_cast<uint16_t>(h >> 8) & 0x3fff),
                     (h * 2654435761ULL) & 0xffffffffffffULL);
}

Agent gpu_agent(int64_t id, std::string name, std::string product, int cus, int wave, int max_waves_per_cu, double clock,
                int lds_kib) {
  Agent a;
  a.id = id;
  a.type = "GPU";
  a.name = std::move(name);
  a.vendor_name = "AMD";
  a.product_name = std::move(product);
  a.compute_units = cus;
  a.simds_per_cu = a.name == "gfx1030" ? 2 : 4;
  a.wave_size = wave;
  a.max_waves_per_cu = max_waves_per_cu;
  a.max_clock_mhz = clock;
  a.lds_kib = lds_kib;
  return a;
}

Agent cpu_agent(int64_t id) {
  Agent a;
  a.id = id;
  a.type = "CPU";
  a.name = "AMD EPYC 9654 96-Core Processor";
  a.vendor_name = "CPU";
  a.product_name = a.name;
  return a;
}

KernelSymbol symbol(int64_t id, std::string mangled, std::string display, int vgpr, int agpr, int sgpr, int static_lds,
                    int scratch = 0) {
  KernelSymbol k;
  k.id = id;
  k.mangled_name = std::move(mangled);
  k.display_name = std::move(display);
  k.arch_vgpr_count = vgpr;
  k.accum_vgpr_count = agpr;
  k.sgpr_count = sgpr;
  k.group_segment_size = static_lds;
  k.private_segment_size = scratch;
  k.kernarg_segment_size = 64;
  return k;
}

struct Series {
  int64_t kernel_id;
  int count;
  double mean_us;
  double jitter;  // relative
  int64_t queue;
  std::array<uint32_t, 3> block;
  std::array<uint64_t, 3> grid;
  uint32_t lds;   // static + dynamic
};

// Runs of a program follow one another: run N starts 100 s after run N-1 (run grouping relies on it).
int64_t run_time(int run, int64_t ns) { return ns + (run - 1) * 100'000'000'000; }

// Lays the dispatches of each series out on its queue, one after another.
void add_series(RocpdWriter& w, int64_t agent_id, const std::vector<Series>& series, uint64_t seed, int64_t& next_id,
                int64_t start_ns) {
  Jitter jitter(seed);
  std::map<int64_t, int64_t> queue_time;
  for (const auto& s : series) {
    for (int i = 0; i < s.count; ++i) {
      int64_t& t = queue_time.try_emplace(s.queue, start_ns).first->second;
      Dispatch d{};
      d.id = next_id++;
      d.queue_id = s.queue;
      d.stream_id = s.queue;
      d.start_ns = t;
      d.end_ns = t + static_cast<int64_t>(s.mean_us * 1000.0 * (1.0 + s.jitter * jitter.next()));
      trace::DispatchGeometry g;
      g.workgroup = s.block;
      g.grid = s.grid;
      g.group_segment_size = s.lds;
      w.add_dispatch(d, g, agent_id, s.kernel_id);
      t = d.end_ns + 2000;
    }
  }
}

RocpdWriter open_writer(const std::filesystem::path& path, const std::string& scenario, int run, int process, int64_t pid) {
  trace::RocpdProcessInfo p;
  p.uuid = uuid_for(scenario, run, process);
  p.pid = pid;
  p.ppid = 1;
  p.hostname = "node01";
  p.command = "./app";
  p.start_ns = run_time(run, 1'000'000'000);
  p.end_ns = run_time(run, 9'000'000'000);
  return RocpdWriter(path, p);
}

// softmax_us and reduce_us set two kernels' mean durations: "mi300x-after" is the same program
// with softmax 30 % slower and reduce_rows 20 % faster (what `diff` must find).
void mi300x(const std::filesystem::path& path, int run, const std::string& name = "mi300x", double softmax_us = 300.0,
            double reduce_us = 150.0) {
  auto w = open_writer(path, name, run, 0, 4000 + run);
  w.add_agent(cpu_agent(1));
  w.add_agent(gpu_agent(2, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  w.add_kernel_symbol(symbol(1, "_Z13matmul_kernelPKfS0_Pfiii", "matmul_kernel(float const*, float const*, float*, int, int, int)",
                             128, 0, 48, 16384));
  w.add_kernel_symbol(symbol(2, "_Z14softmax_kernelPfii", "softmax_kernel(float*, int, int)", 32, 0, 24, 0));
  w.add_kernel_symbol(symbol(3, "__amd_rocclr_fillBufferAligned", "__amd_rocclr_fillBufferAligned", 8, 0, 16, 0));
  w.add_kernel_symbol(symbol(4, "_Z11reduce_rowsPKfPfi", "reduce_rows(float const*, float*, int)", 40, 0, 32, 4096));
  int64_t id = 1;
  add_series(w, 2,
             {{3, 12, 4200.0, 0.01, 1, {256, 1, 1}, {1048576, 1, 1}, 0},
              {1, 40, 1000.0 + 10.0 * run, 0.02, 1, {256, 1, 1}, {65536, 64, 1}, 24576},
              {2, 30, softmax_us, 0.03, 2, {1024, 1, 1}, {1024 * 512, 1, 1}, 0},
              {4, 20, reduce_us, 0.05, 2, {128, 1, 1}, {128 * 2048, 1, 1}, 4096}},
             static_cast<uint64_t>(run), id, run_time(run, 2'000'000'000));
  trace::MemoryCopy c;
  c.id = 1;
  c.start_ns = run_time(run, 1'500'000'000);
  c.end_ns = run_time(run, 1'500'800'000);
  c.size = 64 << 20;
  c.name = "MEMORY_COPY_HOST_TO_DEVICE";
  c.src_agent_id = 1;
  c.dst_agent_id = 2;
  c.queue_id = 1;
  c.stream_id = 1;
  w.add_memory_copy(c);
  w.finish();
}

void mi250x(const std::filesystem::path& path, int run) {
  // Two processes (two GUIDs, two table sets) in one file, as a merged MPI run looks.
  for (int process = 0; process < 2; ++process) {
    trace::RocpdProcessInfo p;
    p.uuid = uuid_for("mi250x", run, process);
    p.pid = 5000 + process;
    p.hostname = "node02";
    p.command = "./mpi_app";
    RocpdWriter w(path, p, /*add_to_existing=*/process > 0);
    w.add_agent(gpu_agent(4 + process, "gfx90a", "AMD Instinct MI250X", 110, 64, 32, 1700, 64));
    w.add_kernel_symbol(symbol(1, "_Z9gemm_mfmaPKDhS0_Pfi", "gemm_mfma(__half const*, __half const*, float*, int)", 64, 64, 96,
                               32768));
    w.add_kernel_symbol(symbol(2, "_Z4axpyfPKfPfi", "axpy(float, float const*, float*, int)", 16, 0, 16, 0));
    int64_t id = 1;
    add_series(w, 4 + process,
               {{1, 25, 2000.0, 0.015, 1, {256, 1, 1}, {256 * 880, 1, 1}, 32768},
                {2, 25, 80.0, 0.05, 2, {512, 1, 1}, {1 << 22, 1, 1}, 0}},
               static_cast<uint64_t>(run * 10 + process), id, run_time(run, 3'000'000'000));
    w.finish();
  }
}

void rx6900xt(const std::filesystem::path& path, int run) {
  auto w = open_writer(path, "rx6900xt", run, 0, 6000 + run);
  w.add_agent(gpu_agent(1, "gfx1030", "AMD Radeon RX 6900 XT", 80, 32, 32, 2250, 64));
  w.add_kernel_symbol(symbol(1, "_Z12stencil_stepPKfPfii", "stencil_step(float const*, float*, int, int)", 96, 0, 128, 8192));
  int64_t id = 1;
  add_series(w, 1, {{1, 50, 500.0, 0.12, 1, {16, 16, 1}, {4096, 4096, 1}, 8192}}, static_cast<uint64_t>(run), id, run_time(run, 1'000'000'000));
  w.finish();
}

void helpers_only(const std::filesystem::path& path, int run) {
  auto w = open_writer(path, "helpers-only", run, 0, 7000);
  w.add_agent(gpu_agent(1, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  w.add_kernel_symbol(symbol(1, "__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer", 8, 0, 16, 0));
  w.add_kernel_symbol(symbol(2, "__amd_rocclr_fillBufferAligned", "__amd_rocclr_fillBufferAligned", 8, 0, 16, 0));
  int64_t id = 1;
  add_series(w, 1, {{1, 5, 100.0, 0.01, 1, {256, 1, 1}, {1 << 20, 1, 1}, 0}, {2, 2, 400.0, 0.01, 1, {256, 1, 1}, {1 << 20, 1, 1}, 0}},
             static_cast<uint64_t>(run), id, run_time(run, 1'000'000'000));
  w.finish();
}

void no_dispatches(const std::filesystem::path& path, int run) {
  auto w = open_writer(path, "no-dispatches", run, 0, 7100);
  w.add_agent(gpu_agent(1, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  w.finish();
}

void example(const std::filesystem::path& path, int run) {
  auto w = open_writer(path, "example", run, 0, 8000 + run);
  w.add_agent(cpu_agent(1));
  w.add_agent(gpu_agent(2, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  w.add_kernel_symbol(symbol(1, "_Z14softmax_kernelPKfPfii", "softmax_kernel(float const*, float*, int, int)", 48, 0, 32, 2048));
  w.add_kernel_symbol(symbol(2, "__amd_rocclr_copyBuffer", "__amd_rocclr_copyBuffer", 8, 0, 16, 0));
  int64_t id = 1;
  add_series(w, 2,
             {{2, 2, 120.0, 0.01, 1, {256, 1, 1}, {1 << 20, 1, 1}, 0},
              {1, 100, 210.0, 0.02, 1, {256, 1, 1}, {256 * 4096, 1, 1}, 2048}},
             static_cast<uint64_t>(run), id, run_time(run, 1'000'000'000));
  w.finish();
}

// Enqueues a program's work in order, one correlation id per call, as a stream-ordered GPU runs it:
// an op starts when its stream is free and every event its stream waits for has completed.
class StreamProgram {
 public:
  StreamProgram(RocpdWriter& w, int64_t agent_id, int64_t start_ns) : w_(w), agent_(agent_id), start_(start_ns) {}

  void kernel(int64_t kernel_id, int64_t stream, int64_t duration_ns) {
    Dispatch d{};
    d.id = ++dispatches_;
    d.queue_id = d.stream_id = stream;
    d.correlation_id = ++correlation_;
    d.start_ns = ready(stream);
    d.end_ns = d.start_ns + duration_ns;
    free_[stream] = d.end_ns;
    trace::DispatchGeometry g;
    g.workgroup = {256, 1, 1};
    g.grid = {256 * 1024, 1, 1};
    w_.add_dispatch(d, g, agent_, kernel_id);
  }
  void copy(int64_t stream, int64_t duration_ns, int64_t bytes) {
    trace::MemoryCopy c;
    c.id = ++copies_;
    c.queue_id = c.stream_id = stream;
    c.correlation_id = ++correlation_;
    c.start_ns = ready(stream);
    c.end_ns = c.start_ns + duration_ns;
    c.size = bytes;
    c.name = "MEMORY_COPY_HOST_TO_DEVICE";
    c.src_agent_id = 1;
    c.dst_agent_id = agent_;
    free_[stream] = c.end_ns;
    w_.add_memory_copy(c);
  }
  void record(int64_t stream, int64_t event) {
    recorded_[event] = ready(stream);
    w_.add_event_operation(op(trace::EventOperationKind::event_record, stream, event));
  }
  void wait(int64_t stream, int64_t event) {
    free_[stream] = std::max(ready(stream), recorded_.at(event));
    w_.add_event_operation(op(trace::EventOperationKind::stream_wait_event, stream, event));
  }
  void synchronize() {
    int64_t all = start_;
    for (const auto& [stream, t] : free_) all = std::max(all, t);
    w_.add_event_operation(op(trace::EventOperationKind::device_synchronize, 0, 0));
    start_ = all + 5'000;
  }

 private:
  int64_t ready(int64_t stream) { return std::max(free_.try_emplace(stream, start_).first->second, start_); }
  trace::EventOperation op(trace::EventOperationKind kind, int64_t stream, int64_t event) {
    trace::EventOperation e;
    e.kind = kind;
    e.stream_id = stream;
    e.event = event;
    e.correlation_id = ++correlation_;
    e.start_ns = e.end_ns = start_;
    return e;
  }

  RocpdWriter& w_;
  int64_t agent_;
  int64_t start_;
  int64_t correlation_ = 0, dispatches_ = 0, copies_ = 0;
  std::map<int64_t, int64_t> free_;      // stream -> when its last op ends
  std::map<int64_t, int64_t> recorded_;  // event -> when its recorded work completes
};

// A copy, then four fork-join steps over three streams joined by events, then a device
// synchronization: the critical path is the copy and each step's produce, branch_long, combine.
void multistream(const std::filesystem::path& path, int run) {
  auto w = open_writer(path, "multistream", run, 0, 8500 + run);
  w.add_agent(cpu_agent(1));
  w.add_agent(gpu_agent(2, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  w.add_kernel_symbol(symbol(1, "_Z7producePf", "produce(float*)", 32, 0, 16, 0));
  w.add_kernel_symbol(symbol(2, "_Z11branch_longPf", "branch_long(float*)", 64, 0, 16, 0));
  w.add_kernel_symbol(symbol(3, "_Z12branch_shortPf", "branch_short(float*)", 32, 0, 16, 0));
  w.add_kernel_symbol(symbol(4, "_Z7combinePf", "combine(float*)", 32, 0, 16, 0));
  StreamProgram p(w, 2, run_time(run, 1'000'000'000));
  p.copy(1, 200'000, 64 << 20);
  for (int step = 0; step < 4; ++step) {
    const int64_t e = step * 10;
    p.kernel(1, 1, 100'000);
    p.record(1, e + 1);
    p.wait(2, e + 1);
    p.kernel(2, 2, 300'000);
    p.record(2, e + 2);
    p.wait(3, e + 1);
    p.kernel(3, 3, 100'000);
    p.record(3, e + 3);
    p.wait(1, e + 2);
    p.wait(1, e + 3);
    p.kernel(4, 1, 50'000);
  }
  p.synchronize();
  w.finish();
}

// An H100 run of roofline_calibration's three kernels with the counter values of its ncu pass:
// an FMA-bound kernel, a streaming copy and a triad (exact FLOPs and bytes, as the program prints).
void h100_roofline(const std::filesystem::path& path, int run) {
  {
    auto w = open_writer(path, "h100-roofline", run, 0, 9200 + run);
    Agent gpu;
    gpu.id = 1;
    gpu.type = "GPU";
    gpu.name = "sm_90";
    gpu.vendor_name = "NVIDIA";
    gpu.product_name = "NVIDIA H100 80GB HBM3";
    gpu.compute_units = 132;
    gpu.wave_size = 32;
    gpu.max_waves_per_cu = 64;
    gpu.max_clock_mhz = 1980;
    w.add_agent(gpu, {{"memory_clock_khz", 2619000}, {"memory_bus_width_bits", 5120}});
    w.add_kernel_symbol(symbol(1, "_Z9fma_boundPfi", "fma_bound(float*, int)", 32, 0, 0, 0));
    w.add_kernel_symbol(symbol(2, "_Z11stream_copyPKfPfm", "stream_copy(float const*, float*, unsigned long)", 16, 0, 0, 0));
    w.add_kernel_symbol(symbol(3, "_Z5triadPfPKfS1_fm", "triad(float*, float const*, float const*, float, unsigned long)", 16,
                               0, 0, 0));
    int64_t id = 1;
    add_series(w, 1,
               {{1, 2, 560.0, 0.0, 7, {256, 1, 1}, {1 << 26, 1, 1}, 0},
                {2, 2, 170.0, 0.0, 7, {256, 1, 1}, {1 << 24, 1, 1}, 0},
                {3, 2, 250.0, 0.0, 7, {256, 1, 1}, {1 << 24, 1, 1}, 0}},
               static_cast<uint64_t>(run), id, run_time(run, 1'000'000'000));
    w.finish();
  }
  std::vector<trace::CounterSample> samples;
  const double n = 1 << 26;
  auto add = [&](const char* kernel, double ffma, double read, double write) {
    for (size_t launch = 0; launch < 2; ++launch) {
      for (const auto& [metric, value] :
           std::vector<std::pair<std::string, double>>{{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", ffma},
                                                       {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 0},
                                                       {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", 0},
                                                       {"dram__bytes_read.sum", read},
                                                       {"dram__bytes_write.sum", write}}) {
        samples.push_back({kernel, launch, metric, "", value});
      }
    }
  };
  add("_Z9fma_boundPfi", 4.0 * 4096 * (1 << 20), 0, 4.0 * (1 << 20));
  add("_Z11stream_copyPKfPfm", 0, 4 * n, 4 * n);
  add("_Z5triadPfPKfS1_fm", n, 8 * n, 4 * n);
  trace::store_counters(path, samples, "ncu");
}

}  // namespace

void write_dag_benchmark_trace(const std::filesystem::path& path, int64_t dispatches, int streams, int64_t cross_edges) {
  auto w = open_writer(path, "dag-benchmark", 1, 0, 9100);
  w.add_agent(cpu_agent(1));
  w.add_agent(gpu_agent(2, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  constexpr int kKernels = 64;
  for (int k = 1; k <= kKernels; ++k) {
    w.add_kernel_symbol(symbol(k, fmt::format("_Z6stage{}Pf", k), fmt::format("stage{}(float*)", k), 32, 0, 16, 0));
  }
  Jitter jitter(7);
  StreamProgram p(w, 2, 1'000'000'000);
  const int64_t every = cross_edges > 0 ? std::max<int64_t>(1, dispatches / cross_edges) : 0;
  int64_t edges = 0;
  for (int64_t i = 0; i < dispatches; ++i) {
    const int64_t stream = 1 + i % streams;
    if (every > 0 && i % every == every - 1 && edges < cross_edges && streams > 1) {
      const int64_t other = 1 + (i + 1 + static_cast<int64_t>(3 * (jitter.next() + 1))) % streams;
      if (other != stream) {
        p.record(other, i);
        p.wait(stream, i);
        ++edges;
      }
    }
    p.kernel(1 + i % kKernels, stream, 5'000 + static_cast<int64_t>(2'000 * (jitter.next() + 1)));
  }
  w.finish();
}

std::vector<std::string> scenario_names() {
  return {"example", "h100-roofline", "helpers-only", "mi250x", "mi300x", "mi300x-after", "multistream", "no-dispatches", "rx6900xt"};
}

void write_scenario(const std::string& name, int run, const std::filesystem::path& path) {
  if (name == "mi300x") return mi300x(path, run);
  if (name == "mi300x-after") return mi300x(path, run, name, 390.0, 120.0);
  if (name == "mi250x") return mi250x(path, run);
  if (name == "rx6900xt") return rx6900xt(path, run);
  if (name == "helpers-only") return helpers_only(path, run);
  if (name == "no-dispatches") return no_dispatches(path, run);
  if (name == "example") return example(path, run);
  if (name == "multistream") return multistream(path, run);
  if (name == "h100-roofline") return h100_roofline(path, run);
  fail(Errc::bad_input, "unknown scenario '{}'", name);
}

void write_observed_trace(const std::filesystem::path& path, int64_t pid, const std::vector<ObservedDispatch>& dispatches) {
  trace::RocpdProcessInfo p;
  p.uuid = uuid_for("observed", static_cast<int>(pid), 0);
  p.pid = pid;
  p.ppid = 1;
  p.hostname = "node01";
  p.command = "./app";
  p.start_ns = dispatches.empty() ? 0 : dispatches.front().start_ns - 1'000'000;
  p.end_ns = dispatches.empty() ? 0 : dispatches.back().end_ns + 1'000'000;
  RocpdWriter w(path, p);
  w.add_agent(cpu_agent(1));
  w.add_agent(gpu_agent(2, "gfx90a", "Stand-in AMD GPU", 104, 64, 32, 1700, 64));
  std::map<std::string, int64_t> kernel_ids;
  int64_t id = 0;
  for (const auto& o : dispatches) {
    auto [it, added] = kernel_ids.try_emplace(o.mangled_name, static_cast<int64_t>(kernel_ids.size()) + 1);
    if (added) w.add_kernel_symbol(symbol(it->second, o.mangled_name, demangle(o.mangled_name), 32, 0, 16, 0));
    Dispatch d{};
    d.id = ++id;
    d.queue_id = d.stream_id = 1;
    d.correlation_id = id;
    d.start_ns = o.start_ns;
    d.end_ns = o.end_ns;
    trace::DispatchGeometry g;
    g.workgroup = o.block;
    g.grid = o.grid;
    w.add_dispatch(d, g, 2, it->second);
  }
  w.finish();
}

void write_benchmark_trace(const std::filesystem::path& path, int64_t dispatches, int kernels, int queues) {
  auto w = open_writer(path, "benchmark", 1, 0, 9000);
  w.add_agent(gpu_agent(1, "gfx942", "AMD Instinct MI300X", 304, 64, 32, 2100, 64));
  for (int k = 1; k <= kernels; ++k) {
    w.add_kernel_symbol(symbol(k, fmt::format("_Z8kernel{}Pfi", k), fmt::format("kernel{}(float*, int)", k), 32 + 8 * (k % 12), 0,
                               32, (k % 4) * 4096));
  }
  Jitter jitter(42);
  std::vector<int64_t> queue_time(static_cast<size_t>(queues), 1'000'000'000);
  for (int64_t i = 0; i < dispatches; ++i) {
    const int kernel = 1 + static_cast<int>(i % kernels);
    const int queue = static_cast<int>(i % queues);
    Dispatch d{};
    d.id = i + 1;
    d.queue_id = queue + 1;
    d.stream_id = queue + 1;
    d.start_ns = queue_time[queue];
    d.end_ns = d.start_ns + 5000 + kernel * 10 + static_cast<int64_t>(500 * jitter.next());
    trace::DispatchGeometry g;
    g.workgroup = {256, 1, 1};
    g.grid = {256u * 1024u, 1, 1};
    g.group_segment_size = static_cast<uint32_t>((kernel % 4) * 4096);
    w.add_dispatch(d, g, 1, kernel);
    queue_time[queue] = d.end_ns + 1000;
  }
  w.finish();
}

}  // namespace rpl::tools
