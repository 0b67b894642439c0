// The AMD path without AMD hardware, on the stand-in HSA runtime (tests/fixtures/fake_hsa), whose
// GPU runs a kernel through its host twin: rpl-hsa-replay on a snapshot of scale_add (its code
// object built by Debian's hipcc for gfx90a); the capture tool through isolate --backend rocm; and
// rocm-perf optimize --backend rocm on row_sums, built by hipcc and profiled by the stand-in
// rocprofv3. What this cannot show is anything of a real GPU's: the stand-in's memory is host
// memory and its timings are the twin's.
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include <hsa/hsa.h>
#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>
#include <rpl/isolate/snapshot.hpp>
#include <rpl/optimize/oracle.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"
#include "../fixtures/fake_hsa/twin_key.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using namespace rpl::isolate;

constexpr uint64_t kIn = 0x7e4000000000, kOut = 0x7e4000200000;
constexpr int kN = 1000;

#define SKIP_WITHOUT_HSA_REPLAY()                                                                                  \
  do {                                                                                                            \
    if (!fs::exists(bin_dir() / "rpl-hsa-replay")) GTEST_SKIP() << "rpl-hsa-replay is not built (no HSA headers)"; \
  } while (0)

// Debian's hipcc, or empty where scripts/setup.sh has not installed it.
std::string hipcc() {
  const std::string path = RPL_HIPCC;
  return path.find("NOTFOUND") == std::string::npos ? path : "";
}

// The code object of tests/fixtures/fake_hsa/scale_add.hip, as hipcc builds it for gfx90a.
std::string scale_add_code_object(const fs::path& dir) {
  if (hipcc().empty()) return "";
  ProcessOptions p;
  p.argv = {hipcc(), "-x", "hip", "--offload-arch=gfx90a", "--cuda-device-only", "--no-gpu-bundle-output", "-O3", "-c",
            (source_dir() / "tests/fixtures/fake_hsa/scale_add.hip").string(), "-o", (dir / "kernel.hsaco").string()};
  p.capture_output = true;
  const auto r = run_process(p);
  EXPECT_EQ(r.exit_status, 0) << r.output;
  return read_file(dir / "kernel.hsaco");
}

// A memory dump of in (0, 1, 2, ...) and out (each element `out`).
void write_memory(const fs::path& dir, const std::vector<float>& out) {
  std::vector<float> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = static_cast<float>(i);
  const std::vector<MemoryRegion> regions{{kIn, kN * 4, "device", region_file_name(kIn)}, {kOut, kN * 4, "device", region_file_name(kOut)}};
  fs::create_directories(dir / "memory");
  write_output_file(dir / regions[0].file, float_bytes(in));
  write_output_file(dir / regions[1].file, float_bytes(out));
  write_memory_regions(dir, regions);
}

// A snapshot of scale_add(out, in, 2, kN) with out all ones, in 64-wide work-groups.
void write_scale_add_snapshot(const fs::path& dir, const std::string& code_object) {
  write_memory(dir, std::vector<float>(kN, 1.0f));
  DispatchRecord d;
  d.vendor = "amd";
  d.device_name = "Stand-in AMD GPU";
  d.architecture = "gfx90a";
  d.kernel_name = "scale_add(float*, float const*, float, int)";
  d.mangled_name = "_Z9scale_addPfPKffi";
  d.code_object = "kernel.hsaco";
  d.grid = {(kN + 63) / 64, 1, 1};
  d.block = {64, 1, 1};
  d.kernarg_size = 24;
  d.arguments = {{0, 24}};
  write_dispatch_record(dir, d);
  struct {
    uint64_t out, in;
    float a;
    int n;
  } args{kOut, kIn, 2.0f, kN};
  write_output_file(dir / "kernarg.bin", std::string_view(reinterpret_cast<const char*>(&args), sizeof args));
  hsa_kernel_dispatch_packet_t packet{};
  packet.setup = 1;
  packet.workgroup_size_x = 64, packet.workgroup_size_y = 1, packet.workgroup_size_z = 1;
  packet.grid_size_x = kN, packet.grid_size_y = 1, packet.grid_size_z = 1;
  write_output_file(dir / "dispatch_packet.bin", std::string_view(reinterpret_cast<const char*>(&packet), sizeof packet));
  write_output_file(dir / "kernel.hsaco", code_object);
}

// The twin of scale_add.hip's code object, in twins under the code object's key.
void install_scale_add_twin(const fs::path& twins, const std::string& code_object) {
  fs::create_directories(twins);
  fs::copy_file(build_dir() / "fake-hsa-twins/rpl-fake-hsa-twin-scale-add.so", twins / (fake_hsa::twin_key(code_object) + ".so"));
}

std::vector<std::pair<std::string, std::string>> stand_in_env(const fs::path& twins) {
  return {{"LD_LIBRARY_PATH", (build_dir() / "fake-hsa").string()}, {"RPL_FAKE_HSA_TWINS", twins.string()}};
}

TEST(AmdStandIn, ReplayRunsTheDispatchAtItsAddressesThroughTheKernelsTwin) {
  SKIP_WITHOUT_HSA_REPLAY();
  const auto dir = fresh_dir("hsa-stand-in-replay");
  const std::string code_object = scale_add_code_object(dir);
  ASSERT_FALSE(code_object.empty()) << "hipcc not found: run scripts/setup.sh (Debian's hipcc package)";
  write_scale_add_snapshot(dir / "snap", code_object);
  install_scale_add_twin(dir / "twins", code_object);

  auto r = run_cli({"replay", "full-vm", "--capture-dir", (dir / "snap").string(), "--iterations", "3", "--dump-outputs",
                    (dir / "dump").string(), "--json"},
                   stand_in_env(dir / "twins"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["status"], "exact") << r.out;
  EXPECT_EQ(doc["device"], "gfx90a");
  EXPECT_EQ(doc["iterations"], 3);
  EXPECT_GT(doc["gpu_time_ms"]["min"].get<double>(), 0.0) << r.out;

  // Each iteration starts from the captured memory: out = 2 * in + 1, once.
  std::vector<float> expected(kN);
  for (int i = 0; i < kN; ++i) expected[i] = 2.0f * static_cast<float>(i) + 1.0f;
  write_memory(dir / "expected", expected);
  auto same = run_cli({"replay", "compare", (dir / "expected").string(), (dir / "dump").string()});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  auto differs = run_cli({"replay", "compare", (dir / "snap").string(), (dir / "dump").string()});
  EXPECT_EQ(differs.exit_code, 1) << differs.out << differs.err;
}

// The AMD capture tool (HSA_TOOLS_LIB) on a program that drives the HSA runtime itself
// (tests/fixtures/fake_hsa/hsa_scale_add.cpp, three launches), then the captured dispatch replayed:
// the replay's memory equals what the launch left in the program.
TEST(AmdStandIn, IsolateCapturesADispatchThatReplaysToTheSameMemory) {
  SKIP_WITHOUT_HSA_REPLAY();
  const auto dir = fresh_dir("hsa-stand-in-isolate");
  const std::string code_object = scale_add_code_object(dir);
  ASSERT_FALSE(code_object.empty()) << "hipcc not found: run scripts/setup.sh (Debian's hipcc package)";
  install_scale_add_twin(dir / "twins", code_object);
  const auto env = stand_in_env(dir / "twins");
  auto captured = run_cli({"isolate", "--backend", "rocm", "--kernel", "scale_add", "--dispatch", "1", "--json", "--out",
                           (dir / "snap").string(), "--", (build_dir() / "fixtures/rpl-hsa-scale-add").string(),
                           (dir / "kernel.hsaco").string(), "1000", "3"},
                          env);
  ASSERT_EQ(captured.exit_code, 0) << captured.err;
  const auto dispatch = nlohmann::json::parse(read_text(dir / "snap/dispatch.json"));
  EXPECT_EQ(dispatch["vendor"], "amd");
  EXPECT_EQ(dispatch["device"]["architecture"], "gfx90a");
  EXPECT_EQ(dispatch["kernel"]["mangled_name"], "_Z9scale_addPfPKffi");
  EXPECT_EQ(dispatch["kernel"]["dispatch_index"], 1);
  EXPECT_EQ(read_file(dir / "snap/kernel.hsaco"), code_object);

  auto replayed = run_cli({"replay", "full-vm", "--capture-dir", (dir / "snap").string(), "--dump-outputs", (dir / "dump").string()}, env);
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_EQ(run_cli({"replay", "compare", (dir / "snap/after").string(), (dir / "dump").string()}).exit_code, 0);
  EXPECT_EQ(run_cli({"replay", "compare", (dir / "snap").string(), (dir / "dump").string()}).exit_code, 1);

  // The capture records the argument buffer as one; the optimizer reads scale_add(out, in, a, n)'s
  // layout from the code object. A copy whose `a` differs is another input shape; one whose
  // pointers alone differ is not.
  const auto snapshot = read_snapshot(dir / "snap");
  ASSERT_EQ(snapshot.dispatch.arguments.size(), 1u);
  const auto arguments = optimize::kernel_arguments(snapshot);
  ASSERT_EQ(arguments.size(), 4u);
  EXPECT_EQ(arguments[2].offset, 16u);
  EXPECT_EQ(arguments[3].offset, 20u);
  const std::vector<bool> pointer = {true, true, false, false};
  auto copy_with = [&](const std::string& name, size_t offset, const std::string& bytes) {
    fs::copy(dir / "snap", dir / name, fs::copy_options::recursive);
    std::string kernarg = read_file(dir / name / "kernarg.bin");
    kernarg.replace(offset, bytes.size(), bytes);
    write_output_file(dir / name / "kernarg.bin", kernarg);
    return read_snapshot(dir / name);
  };
  EXPECT_EQ(optimize::input_shapes({snapshot, copy_with("moved", 0, std::string(8, '\x5a'))}, pointer), 1u);
  EXPECT_EQ(optimize::input_shapes({snapshot, copy_with("scaled", 16, float_bytes({3.0f}))}, pointer), 2u);
}

// optimize --backend rocm on row_sums (a program whose host side runs it through HSA alone,
// fixtures/fake_hsa/row_sums_main.cpp), with the unroll proposer and two candidates of the user's:
// one that does nothing and one that sums only a row's first element. Every unrolled variant gets
// through the build, the guards (gfx90a code objects read by inspect) and the correctness check on
// both oracles to the speed verdict (the twins run the same host code, so none is faster); both
// user candidates are wrong, the empty one although each oracle's output already held the answer.
// Every dispatch reports 20 µs (RPL_FAKE_HSA_DISPATCH_NS), so no verdict depends on the machine.
TEST(AmdStandIn, OptimizeRunsTheGuardedLoopOnTheStandIns) {
  SKIP_WITHOUT_HSA_REPLAY();
  ASSERT_FALSE(hipcc().empty()) << "hipcc not found: run scripts/setup.sh (Debian's hipcc package)";
  const auto dir = fresh_dir("hsa-stand-in-optimize");
  const std::string signature = "__global__ void row_sums(const float* in, float* out, int rows, int cols) ";
  write_output_file(dir / "empty.hip", signature + "{}\n");
  write_output_file(dir / "first_only.hip", signature + "{\n  const int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                        "  if (row < rows) out[row] = in[row * cols];\n}\n");
  const fs::path fixtures = source_dir() / "tests/fixtures/fake_hsa";
  auto env = stand_in_env(dir / "twins");
  const char* path = std::getenv("PATH");
  env.insert(env.end(), {{"PATH", fake_rocprof_dir().string() + ":" + (path ? path : "")},
                         {"RPL_FAKE_ROCPROF_SCENARIO", "hsa-dispatches"},
                         {"RPL_FAKE_HSA_DISPATCH_NS", "20000"},
                         {"RPL_HIPCC", hipcc()},
                         {"RPL_CXX", RPL_CXX},
                         {"RPL_FAKE_HSA_MAIN", (build_dir() / "fixtures/librpl-hsa-row-sums-main.a").string()},
                         {"RPL_FAKE_HSA_RUNTIME", RPL_HSA_RUNTIME},
                         {"RPL_FAKE_HSA_TWIN_KEY", (build_dir() / "fixtures/rpl-fake-hsa-twin-key").string()}});
  auto r = run_cli({"optimize", "--backend", "rocm", "--source", (fixtures / "row_sums.hip").string(), "--build",
                    "sh " + (fixtures / "build_variant.sh").string() + " {SOURCE} {BINARY}", "--candidate", (dir / "empty.hip").string(),
                    // The empty kernel reads no parameter: let it reach the oracle, which it must fail.
                    "--allow-unused-param", "in", "--allow-unused-param", "out", "--allow-unused-param", "rows", "--allow-unused-param", "cols",
                    "--candidate", (dir / "first_only.hip").string(), "--out", (dir / "out").string(), "--json", "--", "{BINARY}", "512",
                    "64", "3"},
                   env);
  ASSERT_EQ(r.exit_code, 1) << r.err;  // nothing beat the original
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(schema_errors(r.out, "optimize"), "");
  EXPECT_EQ(doc["device"]["vendor"], "amd");
  EXPECT_EQ(doc["device"]["architecture"], "gfx90a");
  EXPECT_EQ(doc["kernel"]["mangled_name"], "_Z8row_sumsPKfPfii");
  ASSERT_EQ(doc["oracles"].size(), 2u);
  for (const auto& o : doc["oracles"]) EXPECT_EQ(o["poisoned_bytes"], 2048) << o.dump();  // 512 floats written
  std::map<std::string, std::string> stages;
  for (const auto& c : doc["candidates"]) {
    const auto& origin = c["origin"];
    const std::string name = origin["kind"] == "unroll" ? "unroll " + std::to_string(origin["factor"].get<int>())
                             : origin["kind"] == "file" ? fs::path(origin["file"].get<std::string>()).filename().string()
                                                        : origin["description"].get<std::string>();
    stages[name] = c["stage"].get<std::string>() + (c["correct"] == true ? " correct" : "");
  }
  // The proposals that need no model are built, checked twice on each oracle and timed too. The
  // 64 work-items are one wave: a workgroup or four per CU take one wave per SIMD, so the waves
  // per EU add no variant; the restrict variant knows the pointers from the code object's metadata.
  const std::string flat = "__attribute__((amdgpu_flat_work_group_size(1, 64)";
  EXPECT_EQ(stages, (std::map<std::string, std::string>{{"unroll 2", "speed correct"},
                                                        {"unroll 4", "speed correct"},
                                                        {"unroll 8", "speed correct"},
                                                        {flat + "))", "speed correct"},
                                                        {"__restrict__ on in, out", "speed correct"},
                                                        {"empty.hip", "correctness"},
                                                        {"first_only.hip", "correctness"}}))
      << r.out;
  // No compute-sanitizer on AMD: said in the document, no warning; the two oracles are one shape.
  EXPECT_FALSE(doc["sanitizer"]["ran"].get<bool>());
  EXPECT_NE(doc["sanitizer"]["reason"].get<std::string>().find("AMD"), std::string::npos);
  EXPECT_EQ(doc["warnings"].dump().find("sanitizer"), std::string::npos) << doc["warnings"];
  EXPECT_EQ(doc["oracle_shapes"], 1);
  EXPECT_EQ(read_file(fixtures / "row_sums.hip").find("#pragma unroll"), std::string::npos);  // the source as it was
}

TEST(AmdStandIn, AKernelWithNoTwinEndsTheReplayInOneLine) {
  SKIP_WITHOUT_HSA_REPLAY();
  const auto dir = fresh_dir("hsa-stand-in-no-twin");
  const std::string code_object = scale_add_code_object(dir);
  ASSERT_FALSE(code_object.empty()) << "hipcc not found: run scripts/setup.sh (Debian's hipcc package)";
  write_scale_add_snapshot(dir / "snap", code_object);
  fs::create_directories(dir / "twins");
  auto r = run_cli({"replay", "full-vm", "--capture-dir", (dir / "snap").string(), "--dump-outputs", (dir / "dump").string()},
                   stand_in_env(dir / "twins"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("the replayer was killed by signal 6"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no host twin of _Z9scale_addPfPKffi"), std::string::npos) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir / "dump"));  // the folder the replay made is gone with it
}

}  // namespace
}  // namespace rpl::test
