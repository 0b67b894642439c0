// On a real NVIDIA GPU (label gpu): rocm-perf isolate captures one dispatch, rocm-perf replay runs
// it alone in a fresh process at the same addresses, and the memory it leaves is bit-identical to
// the memory the program had after that dispatch. Every test skips, saying why, without a GPU.
#include <cmath>
#include <fstream>
#include <iostream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/backends/cuda_tracer.hpp>
#include <rpl/core/subprocess.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

#define SKIP_WITHOUT_REPLAY()                                                                        \
  do {                                                                                               \
    if (auto why = backends::nvidia_gpu_unavailable()) GTEST_SKIP() << "no NVIDIA GPU: " << *why;    \
    if (!fs::exists(examples_dir() / "isolate_targets")) GTEST_SKIP() << "testbeds not built (no CUDA compiler)"; \
    if (!fs::exists(bin_dir() / "rpl-cuda-replay")) GTEST_SKIP() << "rpl-cuda-replay not built";      \
  } while (0)

struct Captured {
  CliResult cli;
  fs::path dir;
  json doc;
};

Captured isolate(const std::string& kernel, int dispatch, const std::vector<std::string>& command,
                 const std::vector<std::pair<std::string, std::string>>& env = {}) {
  Captured c;
  c.dir = fresh_dir("snap") / "snapshot";
  std::vector<std::string> args = {"isolate", "--json", "--quiet-app", "--kernel", kernel, "--dispatch", std::to_string(dispatch),
                                   "--out", c.dir.string(), "--"};
  args.insert(args.end(), command.begin(), command.end());
  c.cli = run_cli(args, env, 300);
  if (c.cli.exit_code == 0) c.doc = json::parse(c.cli.out);
  return c;
}

json replay(const fs::path& snapshot, int iterations, const std::vector<std::string>& extra = {}, int expected_exit = 0) {
  std::vector<std::string> args = {"replay", "full-vm", "--json", "--capture-dir", snapshot.string(), "--iterations",
                                   std::to_string(iterations)};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args, {}, 300);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

// Captures, replays in a fresh process, and compares the replay's memory with the program's.
json capture_replay_compare(const std::string& kernel, int dispatch, const std::vector<std::string>& command,
                            const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const auto c = isolate(kernel, dispatch, command, env);
  EXPECT_EQ(c.cli.exit_code, 0) << kernel << ": " << c.cli.err;
  if (c.cli.exit_code != 0) return {};
  EXPECT_EQ(schema_errors(c.cli.out, "isolate"), "");
  const fs::path dump = c.dir.parent_path() / "replayed";
  const auto r = replay(c.dir, 20, {"--dump-outputs", dump.string()});
  if (r.is_null()) return {};
  EXPECT_EQ(schema_errors(r.dump(), "replay"), "");
  const auto same = run_cli({"replay", "compare", (c.dir / "after").string(), dump.string()});
  EXPECT_EQ(same.exit_code, 0) << kernel << ": the replay's memory differs from the program's\n" << same.out << same.err;
  std::cout << kernel << ": " << c.doc["memory"]["regions"] << " regions, " << c.doc["memory"]["bytes"] << " bytes, capture "
            << c.doc["capture_ms"] << " ms; program median " << c.doc["program_time"]["median_ms"] << " ms, replay median "
            << r["gpu_time_ms"]["median"] << " ms\n";
  return json{{"isolate", c.doc}, {"replay", r}};
}

TEST(NvidiaIsolate, EachKindOfKernelReplaysBitIdentically) {
  SKIP_WITHOUT_REPLAY();
  const std::vector<std::string> program = {(examples_dir() / "isolate_targets").string(), "4"};
  for (const char* kernel : {"scale_with_globals", "inplace_axpy", "gather_pointers", "reverse_shared", "cluster_copy", "pool_fill"}) {
    const auto result = capture_replay_compare(kernel, 2, program);
    if (std::string(kernel) == "scale_with_globals" && !result.is_null()) {
      EXPECT_EQ(result["isolate"]["memory"]["globals"], 2);  // g_scale and g_launches
    }
  }
}

// With lazy loading (CUDA's default) the module of the program's first launch loads inside that
// launch, after the capture saw it begin.
TEST(NvidiaIsolate, TheProgramsFirstLaunchIsCaptured) {
  SKIP_WITHOUT_REPLAY();
  capture_replay_compare("scale_with_globals", 0, {(examples_dir() / "isolate_targets").string(), "1"});
}

// The replayed kernel time is the program's, within 5 %, for each testbed's kernels: against the
// median of the kernel's dispatches in the same run, or, for a kernel whose launches differ in
// length (multistream_dag spins a set time per launch), against the captured dispatch. The replay
// starts each launch from a flushed L2, as ncu does. roofline_calibration's one triad is not held
// to it: it runs right after stream_copy and pays for writing back the 64 MiB that stream_copy left
// dirty in L2, which a kernel replayed alone does not (on an H100 it replayed 4-7 % faster).
TEST(NvidiaIsolate, ReplayedTimeMatchesTheProgram) {
  SKIP_WITHOUT_REPLAY();
  struct Case {
    std::string kernel;
    int dispatch;
    std::vector<std::string> command;
    bool own_dispatch;
  };
  const auto bed = [](const char* name) { return (examples_dir() / name).string(); };
  const std::vector<Case> cases = {
      {"softmax_naive", 5, {bed("softmax_testbed"), "4096", "1024", "30"}, false},
      {"sgemm_tiled", 3, {bed("matmul_tunable"), "2048", "2048", "2048", "--bm", "128", "--bn", "128", "--bk", "16", "--tm", "8", "--tn", "8",
                          "--repeat", "10"}, false},
      {"fma_bound", 0, {bed("roofline_calibration"), std::to_string(1 << 24), "1024"}, false},
      {"stream_copy", 0, {bed("roofline_calibration"), std::to_string(1 << 24), "1024"}, false},
      {"spin_kernel", 3, {bed("multistream_dag"), "200"}, true}};
  for (const auto& k : cases) {
    const auto c = isolate(k.kernel, k.dispatch, k.command);
    ASSERT_EQ(c.cli.exit_code, 0) << k.kernel << ": " << c.cli.err;
    const auto r = replay(c.dir, 50);
    ASSERT_FALSE(r.is_null());
    EXPECT_EQ(r["timing"], "cupti");
    const auto& t = c.doc["program_time"];
    const double program = k.own_dispatch ? t["captured_dispatch_ms"].get<double>() : t["median_ms"].get<double>();
    const double replayed = r["gpu_time_ms"]["median"];
    std::cout << k.kernel << ": program " << program << " ms, replay median " << replayed << " ms (" << std::showpos
              << 100 * (replayed / program - 1) << std::noshowpos << " %)\n";
    EXPECT_NEAR(replayed / program, 1.0, 0.05) << k.kernel;
  }
}

// Without --no-recopy every iteration starts from the captured memory; with it, an in-place
// kernel keeps updating its buffer, so its memory after two iterations differs from one launch's.
TEST(NvidiaIsolate, NoRecopyIsStateful) {
  SKIP_WITHOUT_REPLAY();
  const auto c = isolate("inplace_axpy", 1, {(examples_dir() / "isolate_targets").string(), "3"});
  ASSERT_EQ(c.cli.exit_code, 0) << c.cli.err;
  const fs::path stateless = c.dir.parent_path() / "stateless", stateful = c.dir.parent_path() / "stateful";
  EXPECT_EQ(replay(c.dir, 2, {"--dump-outputs", stateless.string()})["mode"], "stateless");
  EXPECT_EQ(replay(c.dir, 2, {"--no-recopy", "--dump-outputs", stateful.string()})["mode"], "stateful");
  EXPECT_EQ(run_cli({"replay", "compare", (c.dir / "after").string(), stateless.string()}).exit_code, 0);
  const auto differs = run_cli({"replay", "compare", (c.dir / "after").string(), stateful.string()});
  EXPECT_EQ(differs.exit_code, 1) << differs.out;
}

TEST(NvidiaIsolate, ReserveCheckReportsExactAndRelocated) {
  SKIP_WITHOUT_REPLAY();
  const auto c = isolate("pool_fill", 0, {(examples_dir() / "isolate_targets").string(), "1"});
  ASSERT_EQ(c.cli.exit_code, 0) << c.cli.err;
  const auto exact = run_cli({"replay", "reserve-check", "--json", "--capture-dir", c.dir.string()});
  EXPECT_EQ(exact.exit_code, 0) << exact.out << exact.err;
  // Host memory mapped over the first region beforehand: the driver cannot give that address.
  const auto moved = run_cli({"replay", "reserve-check", "--json", "--capture-dir", c.dir.string()},
                             {{"RPL_REPLAY_OCCUPY_FIRST_REGION", "1"}});
  EXPECT_EQ(moved.exit_code, 2) << moved.out << moved.err;
  if (moved.exit_code == 2) {
    EXPECT_EQ(json::parse(moved.out)["status"], "relocated");
  }
  const auto full = run_cli({"replay", "full-vm", "--capture-dir", c.dir.string()}, {{"RPL_REPLAY_OCCUPY_FIRST_REGION", "1"}});
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_NE(full.err.find("cannot all be reserved where they were"), std::string::npos) << full.err;
}

TEST(NvidiaIsolate, ARegexThatMatchesNothingSaysSoAfterTheProgramRan) {
  SKIP_WITHOUT_REPLAY();
  const auto c = isolate("no_such_kernel", 0, {(examples_dir() / "isolate_targets").string(), "1"});
  EXPECT_EQ(c.cli.exit_code, 2);
  EXPECT_NE(c.cli.err.find("nothing was captured"), std::string::npos) << c.cli.err;
  EXPECT_NE(c.cli.err.find("inplace_axpy"), std::string::npos) << c.cli.err;  // what it did launch
  EXPECT_FALSE(fs::exists(c.dir));
}

// A code object of the right type that the driver refuses, and one without the snapshot's kernel:
// bad input (exit 2), each one line naming the file or the kernel.
TEST(NvidiaIsolate, ACodeObjectTheDriverRefusesIsBadInput) {
  SKIP_WITHOUT_REPLAY();
  const auto c = isolate("pool_fill", 0, {(examples_dir() / "isolate_targets").string(), "1"});
  ASSERT_EQ(c.cli.exit_code, 0) << c.cli.err;
  const auto good = read_text(c.dir / "kernel.cubin");
  ASSERT_GT(good.size(), 64u);
  std::string damaged = good.substr(0, 64) + std::string(good.size() - 64, '\xab');  // the ELF header kept
  std::ofstream(c.dir / "kernel.cubin", std::ios::binary | std::ios::trunc) << damaged;
  auto r = run_cli({"replay", "full-vm", "--capture-dir", c.dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("kernel.cubin"), std::string::npos) << r.err;  // malformed: our reader refuses it first
  std::ofstream(c.dir / "kernel.cubin", std::ios::binary | std::ios::trunc) << good;
  auto dispatch = json::parse(read_text(c.dir / "dispatch.json"));
  dispatch["kernel"]["mangled_name"] = "_Z9not_theirv";
  std::ofstream(c.dir / "dispatch.json", std::ios::trunc) << dispatch.dump();
  r = run_cli({"replay", "full-vm", "--capture-dir", c.dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("kernel.cubin: the code object has no kernel _Z9not_theirv"), std::string::npos) << r.err;
}

// JAX with its defaults preallocates 75 % of the GPU as one pool and writes a few MiB of it: the
// snapshot stores what was written (issue: the pool filled a 64 GiB disk), and the GEMM still
// replays bit-identically.
TEST(NvidiaIsolate, JaxsPreallocatedPoolIsStoredByWhatItHolds) {
  SKIP_WITHOUT_REPLAY();
  const std::vector<std::string> program = {"python3", (source_dir() / "tests/gpu/programs/jax_gemm.py").string()};
  ProcessOptions probe;
  probe.argv = {"python3", "-c", "import jax"};
  probe.capture_output = true;
  if (const auto r = run_process(probe); !r.ok()) GTEST_SKIP() << "no JAX: " << r.output;
  const auto result = capture_replay_compare("gemm|nvjet|xmma|cutlass", 1, program);
  ASSERT_FALSE(result.is_null());
  const auto& memory = result["isolate"]["memory"];
  const uint64_t captured = memory["bytes"], skipped = memory["skipped_bytes"], on_disk = result["isolate"]["snapshot_bytes"];
  std::cout << "jax: captured " << captured << " bytes, skipped " << skipped << ", stored " << memory["stored_bytes"]
            << ", on disk with after/ " << on_disk << ", capture " << result["isolate"]["capture_ms"] << " + "
            << result["isolate"]["after_ms"] << " ms\n";
  EXPECT_GT(captured, 16ull << 30) << "JAX's pool";
  EXPECT_GT(skipped, captured / 2);
  EXPECT_LT(on_disk, 3ull << 30);
}

// A snapshot whose memory cannot fit in the GPU: one clear line, before anything is mapped.
TEST(NvidiaIsolate, ASnapshotLargerThanTheFreeMemoryIsRefused) {
  SKIP_WITHOUT_REPLAY();
  const auto c = isolate("pool_fill", 0, {(examples_dir() / "isolate_targets").string(), "1"});
  ASSERT_EQ(c.cli.exit_code, 0) << c.cli.err;
  // A 1 TiB region, as a sparse file.
  const uint64_t size = 1ull << 40;
  auto regions = json::parse(read_text(c.dir / "memory_regions.json"));
  const std::string file = "memory/region_0x00007e0000000000.bin";
  regions["regions"].push_back({{"base", "0x00007e0000000000"}, {"size", size}, {"kind", "device"}, {"file", file}});
  std::ofstream(c.dir / "memory_regions.json", std::ios::trunc) << regions.dump();
  std::ofstream(c.dir / file).close();
  fs::resize_file(c.dir / file, size);
  const auto r = run_cli({"replay", "full-vm", "--capture-dir", c.dir.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("of device memory"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rpl::test
