// rocm-perf isolate and replay where no GPU is needed or none is there: replay compare on memory
// dumps, and every bad snapshot and bad option refused with one line and the documented exit code
// before any GPU work (the GPU half is tests/gpu/test_nvidia_isolate.cpp).
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

#include "test_snapshot_files.hpp"
#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;
using namespace rpl::isolate;

fs::path make_snapshot(const std::string& name) { return write_test_snapshot(fresh_dir(name) / "snap"); }

void expect_error(const CliResult& r, int code, const std::string& message) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "expected '" << message << "' in: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ReplayCompare, EqualDifferentAndWithinTolerance) {
  const auto a = make_snapshot("cmp-a"), b = make_snapshot("cmp-b"), c = make_snapshot("cmp-c");
  write_output_file(c / region_file_name(0x7f0000200000), float_bytes({1, 2, 3.0001f, 4}));
  EXPECT_EQ(run_cli({"replay", "compare", a.string(), b.string()}).exit_code, 0);
  const auto differs = run_cli({"replay", "compare", a.string(), c.string()});
  EXPECT_EQ(differs.exit_code, 1) << differs.err;
  EXPECT_NE(differs.out.find("0x00007f0000200000"), std::string::npos) << differs.out;  // names the region
  const auto json = run_cli({"replay", "compare", "--json", "--dtype", "f32", "--rtol", "1e-3", a.string(), c.string()});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(schema_errors(json.out, "replay-compare"), "");
  expect_error(run_cli({"replay", "compare", "--rtol", "0.1", a.string(), c.string()}), 2, "--rtol and --atol apply to");
}

// A chunked dump (format 1.1) whose region file is damaged: replay compare names the file and the
// chunk on one line, exit 2; a damaged index is found when the folder is read.
TEST(ReplayBadInput, ADamagedChunkedRegionIsNamedWithItsChunk) {
  const auto dir = fresh_dir("cmp-chunked");
  std::string bytes(3 * kChunkBytes, '\0');
  for (size_t i = 2 * kChunkBytes; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i % 5 + 1);  // chunk 2 compresses
  for (const char* name : {"a", "b"}) {
    std::vector<MemoryRegion> regions{{0x7f0000000000, bytes.size(), "device", ""}};
    std::vector<char> staging(kChunkBytes);
    dump_memory(dir / name, regions, [&](uint64_t address, uint64_t n, char* into) { std::memcpy(into, bytes.data() + (address - 0x7f0000000000), n); },
                staging, 1.0);
  }
  EXPECT_EQ(run_cli({"replay", "compare", (dir / "a").string(), (dir / "b").string()}).exit_code, 0);
  const fs::path file = dir / "b" / chunked_region_file_name(0x7f0000000000);
  std::string damaged = read_file(file);
  damaged[damaged.size() - 10] ^= 0x5a;  // inside chunk 2, the last one stored
  write_output_file(file, damaged);
  expect_error(run_cli({"replay", "compare", (dir / "a").string(), (dir / "b").string()}), 2, "chunk 2 is damaged");
  write_output_file(file, damaged.substr(0, 40));
  expect_error(run_cli({"replay", "compare", (dir / "a").string(), (dir / "b").string()}), 2, "its chunk index is damaged");
}

TEST(ReplayBadInput, TheSnapshotIsCheckedBeforeAnyGpuWork) {
  for (const char* mode : {"full-vm", "reserve-check"}) {
    expect_error(run_cli({"replay", mode, "--capture-dir", "/nonexistent/snap"}), 2, "/nonexistent/snap: not a snapshot folder");
    {
      const auto dir = make_snapshot(std::string("missing-") + mode);
      fs::remove(dir / "kernarg.bin");
      expect_error(run_cli({"replay", mode, "--capture-dir", dir.string()}), 2, "kernarg.bin: missing");
    }
    {
      const auto dir = make_snapshot(std::string("short-") + mode);
      std::ofstream(dir / region_file_name(0x7f0000200000), std::ios::trunc) << "abc";
      expect_error(run_cli({"replay", mode, "--capture-dir", dir.string()}), 2, "3 bytes, but region 1 at 0x00007f0000200000");
    }
    {
      const auto dir = make_snapshot(std::string("corrupt-") + mode);
      write_output_file(dir / "kernel.cubin", "\x7f" "ELF but cut short");
      expect_error(run_cli({"replay", mode, "--capture-dir", dir.string()}), 2, "kernel.cubin: not a code object for NVIDIA GPUs");
    }
  }
  expect_error(run_cli({"replay", "full-vm", "--capture-dir", make_snapshot("zero").string(), "--iterations", "0"}), 2,
               "--iterations");
}

// No GPU (a stand-in libcuda.so.1 that finds none, tests/fixtures/fake_libcuda.cpp): a good
// snapshot is not replayed and a program is not run, each with exit 3 saying why; the snapshot
// folder is left as it was.
TEST(IsolateAndReplay, NoGpuIsAMissingTool) {
  const std::vector<std::pair<std::string, std::string>> no_gpu = {
      {"LD_LIBRARY_PATH", (build_dir() / "fake-driver").string()}, {"RPL_FAKE_CUDA", "nodevices"},
      {"RPL_CUPTI_TRACE_LIB", (build_dir() / "fake-driver" / "libcuda.so.1").string()},
      {"RPL_CUDA_REPLAY", (bin_dir() / "rocm-perf").string()}};
  const auto dir = make_snapshot("no-gpu");
  const auto before = read_text(dir / "dispatch.json");
  expect_error(run_cli({"replay", "full-vm", "--capture-dir", dir.string()}, no_gpu), 3, "cannot replay on NVIDIA: no NVIDIA GPU found");
  expect_error(run_cli({"isolate", "--kernel", "k", "--out", dir.string(), "--", "/bin/true"}, no_gpu), 3,
               "cannot trace on NVIDIA: no NVIDIA GPU found");
  EXPECT_EQ(read_text(dir / "dispatch.json"), before);
}

// An AMD snapshot goes to the AMD replayer, which says there is no AMD GPU here (or, built without
// the HSA headers, that it is not built); its AQL packet is checked first, and then (by the
// replayer) that its code object holds the kernel.
TEST(ReplayBadInput, AnAmdSnapshotGoesToTheAmdReplayer) {
  const auto dir = make_snapshot("amd");
  auto text = read_text(dir / "dispatch.json");
  text.replace(text.find("\"nvidia\""), 8, "\"amd\"");
  text.replace(text.find("\"_Z5scalePfPKfi\""), 16, "\"_Z1kPf\"");  // the kernel of a real gfx90a code object
  write_output_file(dir / "dispatch.json", text);
  write_output_file(dir / "kernel.cubin", elf_header(224));  // EM_AMDGPU, and nothing more
  expect_error(run_cli({"replay", "full-vm", "--capture-dir", dir.string()}), 2, "dispatch_packet.bin: missing");
  write_output_file(dir / "dispatch_packet.bin", std::string(64, '\0'));
  const bool built = fs::exists(bin_dir() / "rpl-hsa-replay");
  if (built) expect_error(run_cli({"replay", "reserve-check", "--capture-dir", dir.string()}), 2, "kernel.cubin");
  fs::copy_file(source_dir() / "tests/fuzz/corpus/amd_code_object/gfx90a.hsaco", dir / "kernel.cubin",
                fs::copy_options::overwrite_existing);
  expect_error(run_cli({"replay", "reserve-check", "--capture-dir", dir.string()}), 3,
               built ? "no usable AMD GPU" : "rpl-hsa-replay) is not built");
}

// A replayer that finds the captured addresses taken (a host library landed on them in its
// process) is run again in a fresh process, up to three times in all, for full-vm; reserve-check
// reports what the one process found. The stand-in replayer (tests/fixtures/fake_replayer) counts
// its runs.
TEST(ReplayRetry, TakenAddressesAreTriedAgainInAFreshProcess) {
  const auto dir = make_snapshot("retry");
  auto text = read_text(dir / "dispatch.json");
  text.replace(text.find("\"nvidia\""), 8, "\"amd\"");  // the AMD path needs no GPU check before the replayer
  text.replace(text.find("\"_Z5scalePfPKfi\""), 16, "\"_Z1kPf\"");
  write_output_file(dir / "dispatch.json", text);
  write_output_file(dir / "dispatch_packet.bin", std::string(64, '\0'));
  fs::copy_file(source_dir() / "tests/fuzz/corpus/amd_code_object/gfx90a.hsaco", dir / "kernel.cubin",
                fs::copy_options::overwrite_existing);
  const auto runs = dir.parent_path() / "runs";
  auto replay = [&](const std::string& mode, int taken) {
    fs::remove(runs);
    return run_cli({"replay", mode, "--json", "--capture-dir", dir.string()},
                   {{"RPL_HSA_REPLAY", (source_dir() / "tests/fixtures/fake_replayer/replayer").string()},
                    {"RPL_FAKE_RUNS", runs.string()}, {"RPL_FAKE_TAKEN", std::to_string(taken)}});
  };
  auto r = replay("full-vm", 2);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(runs), "3\n");
  EXPECT_EQ(count_lines(r.err), 2) << r.err;
  EXPECT_NE(r.err.find("trying again in a fresh process (3 of 3)"), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false).value("status", ""), "exact");

  r = replay("full-vm", 3);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(read_text(runs), "3\n");
  EXPECT_NE(r.err.find("cannot all be reserved where they were (the driver offered other addresses) in each of 3 processes"),
            std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");

  r = replay("reserve-check", 1);
  EXPECT_EQ(read_text(runs), "1\n") << "reserve-check says what one process found";
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(IsolateBadInput, OptionsAndTheOutputFolder) {
  expect_error(run_cli({"isolate", "--", "/bin/true"}), 2, "--kernel is required");
  expect_error(run_cli({"isolate", "--kernel", "k"}), 2, "give the program to run after --");
  expect_error(run_cli({"isolate", "--kernel", "k", "--", "/nonexistent/app"}), 2, "/nonexistent/app");
  // A folder of the user's that is not a snapshot is never replaced, and nothing runs.
  const auto mine = fresh_dir("isolate-mine");
  std::ofstream(mine / "notes.txt") << "mine";
  expect_error(run_cli({"isolate", "--kernel", "k", "--out", mine.string(), "--", "/bin/true"}), 2, "is not a snapshot folder");
  EXPECT_EQ(read_text(mine / "notes.txt"), "mine");
  const auto file = mine / "notes.txt";
  expect_error(run_cli({"isolate", "--kernel", "k", "--out", file.string(), "--", "/bin/true"}), 2, "is not a folder");
  // A program that never starts the GPU runtime: it runs, and nothing is captured.
  expect_error(run_cli({"isolate", "--kernel", "k", "--backend", "rocm", "--out", (mine / "snap").string(), "--", "/bin/true"}), 1,
               "without starting the GPU runtime");
  EXPECT_FALSE(fs::exists(mine / "snap"));
}

// The capture library reports in $RPL_CAPTURE_DIR/capture_status.json. Here a stand-in driver finds
// one GPU and the "program" is a shell script that writes that report itself (or dies first): a
// failed capture and a program that dies before reporting are each exit 1 with one line, and the
// earlier snapshot in --out is left as it was.
TEST(IsolateBadInput, AFailedCaptureKeepsTheEarlierSnapshot) {
  const std::vector<std::pair<std::string, std::string>> fake_gpu = {
      {"LD_LIBRARY_PATH", (build_dir() / "fake-driver").string()},
      {"RPL_CUPTI_TRACE_LIB", (build_dir() / "fake-driver" / "libcuda.so.1").string()}};
  const auto out = make_snapshot("isolate-failed");
  const auto before = read_text(out / "dispatch.json");
  const auto isolate = [&](const std::string& script) {
    return run_cli({"isolate", "--kernel", "k", "--backend", "cuda", "--out", out.string(), "--", "/bin/sh", "-c", script}, fake_gpu);
  };
  expect_error(isolate(R"(printf '{"captured": false, "error": "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS"}' )"
                       R"(> "$RPL_CAPTURE_DIR/capture_status.json")"),
               1, "the capture failed: cuCtxSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS");
  expect_error(isolate("kill -9 $$"), 1, "before the capture reported anything");
  expect_error(isolate(R"(printf '{"captured": true}' > "$RPL_CAPTURE_DIR/capture_status.json")"), 4,
               "capture_status.json: not what the capture library writes");
  EXPECT_EQ(read_text(out / "dispatch.json"), before);
  EXPECT_EQ(read_snapshot(out).memory.regions.size(), 2u);
  for (const auto& e : fs::directory_iterator(out.parent_path())) EXPECT_EQ(e.path(), out) << "left behind";
}

}  // namespace
}  // namespace rpl::test
