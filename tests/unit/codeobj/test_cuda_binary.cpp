// CUDA binaries: recognizing them, and reading cuobjdump's resource usage.
#include <sys/resource.h>

#include <chrono>
#include <iostream>
#include <map>
#include <random>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>

#include "test_support.hpp"

namespace rpl::codeobj {
namespace {
namespace fs = std::filesystem;

// As cuobjdump 13.0 prints it for an executable (tests/fixtures/cuobjdump_*.txt are real ones).
const char* kResourceUsage = R"txt(
Fatbin elf code:
================
arch = sm_90
code version = [1,8]
host = linux
compile_size = 64bit

Resource usage:
 Common:
  GLOBAL:0
 Function _Z5triadPfPKfS1_fm:
  REG:14 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:936 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z9fma_boundPfi:
  REG:16 STACK:8 SHARED:1024 LOCAL:24 CONSTANT[2]:8 CONSTANT[0]:908 TEXTURE:0 SURFACE:0 SAMPLER:0

Fatbin ptx code:
================
arch = sm_90
)txt";

TEST(CudaBinary, ParsesResourceUsage) {
  auto kernels = parse_cuobjdump_resource_usage(kResourceUsage);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "_Z5triadPfPKfS1_fm");
  EXPECT_EQ(kernels[0].arch, "sm_90");
  EXPECT_EQ(kernels[0].registers, 14);
  EXPECT_EQ(kernels[0].constant_bytes, 936);
  EXPECT_EQ(kernels[1].name, "_Z9fma_boundPfi");
  EXPECT_EQ(kernels[1].shared_bytes, 1024);
  EXPECT_EQ(kernels[1].local_bytes, 24);
  EXPECT_EQ(kernels[1].stack_bytes, 8);
  EXPECT_EQ(kernels[1].constant_bytes, 908);  // CONSTANT[0], not CONSTANT[2]
  EXPECT_TRUE(parse_cuobjdump_resource_usage("").empty());
}

TEST(CudaBinary, RealCuobjdumpOutput) {
  // cuobjdump 13.0 on the roofline_calibration testbed, a PTX entry before the machine code.
  auto kernels = parse_cuobjdump_resource_usage(
      test::read_text(test::source_dir() / "tests/fixtures/cuobjdump_roofline_calibration.txt"));
  ASSERT_EQ(kernels.size(), 4u);
  std::map<std::string, int64_t> regs;
  for (const auto& k : kernels) {
    EXPECT_EQ(k.arch, "sm_90");
    regs[k.name] = k.registers;
  }
  EXPECT_EQ(regs["_Z5triadPfPKfS1_fm"], 14);
  EXPECT_EQ(regs["_Z11stream_copyPKfPfm"], 10);
  EXPECT_EQ(regs["_Z9fma_boundPfi"], 16);
  EXPECT_EQ(regs["_Z11spin_kernelyPi"], 10);
}

std::optional<fs::path> nvcc() { return find_executable("nvcc", {"/usr/local/cuda/bin"}); }

// Runs nvcc; its output (ptxas's report with --resource-usage) is returned.
std::string compile(const std::vector<std::string>& args) {
  ProcessOptions p;
  p.argv = {nvcc()->string()};
  p.argv.insert(p.argv.end(), args.begin(), args.end());
  p.capture_output = true;
  p.timeout = std::chrono::duration<double>(300);
  auto r = run_process(p);
  EXPECT_TRUE(r.ok()) << r.output;
  return r.output;
}

struct PtxasFigures {
  int64_t registers = 0, shared = 0, stack = 0, constant = -1;  // constant: -1 where not reported
};

// ptxas's own report, per (arch, kernel): "Compiling entry function 'K' for 'sm_90'" then
// "Used R registers, ..., S bytes smem, T bytes cumulative stack size, C bytes cmem[0]".
std::map<std::pair<std::string, std::string>, PtxasFigures> parse_ptxas_report(const std::string& text) {
  static const std::regex entry_re(R"(Compiling entry function '(\S+)' for '(sm_\d+)')");
  static const std::regex used_re(R"(Used (\d+) registers)");
  static const std::regex smem_re(R"((\d+) bytes smem)");
  static const std::regex stack_re(R"((\d+) bytes cumulative stack size)");
  static const std::regex cmem_re(R"((\d+) bytes cmem\[0\])");
  std::map<std::pair<std::string, std::string>, PtxasFigures> out;
  std::pair<std::string, std::string> current;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) {
      current = {m[2], m[1]};
    } else if (std::regex_search(line, m, used_re) && !current.first.empty()) {
      PtxasFigures f;
      f.registers = std::stoll(m[1]);
      if (std::regex_search(line, m, smem_re)) f.shared = std::stoll(m[1]);
      if (std::regex_search(line, m, stack_re)) f.stack = std::stoll(m[1]);
      if (std::regex_search(line, m, cmem_re)) f.constant = std::stoll(m[1]);
      out[current] = f;
      current = {};
    }
  }
  return out;
}

const std::vector<std::string> kTwoArches = {"-gencode", "arch=compute_80,code=sm_80", "-gencode",
                                             "arch=compute_90,code=sm_90"};

fs::path resource_kernels_source() { return test::source_dir() / "tests/gpu/programs/resource_kernels.cu"; }

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The reader against ptxas's report of the same compilation, for each way nvcc packs machine code:
// an executable, plain, zstd- and LZ4-compressed fatbins, and a bare cubin.
TEST(CudaBinary, ReadsWhatPtxasReports) {
  if (!nvcc()) GTEST_SKIP() << "nvcc not found";
  const fs::path dir = test::fresh_dir("ptxas");
  const std::string source = resource_kernels_source().string();
  const auto report = parse_ptxas_report(
      compile(with(kTwoArches, {"--resource-usage", "-o", (dir / "app").string(), source})));
  ASSERT_EQ(report.size(), 12u);  // five kernels and the testbeds' spin_kernel, two arches
  compile(with(kTwoArches, {"-fatbin", "--compress-mode=none", "-o", (dir / "plain.fatbin").string(), source}));
  compile(with(kTwoArches, {"-fatbin", "--compress-mode=size", "-o", (dir / "zstd.fatbin").string(), source}));
  compile(with(kTwoArches, {"-fatbin", "--compress-mode=speed", "-Xfatbin", "-compress-all", "-o",
                            (dir / "lz4.fatbin").string(), source}));
  compile({"-arch=sm_90", "-cubin", "-o", (dir / "k.cubin").string(), source});
  // The compressed forms really are compressed: no plain cubin inside, or fewer bytes.
  EXPECT_EQ(test::read_text(dir / "zstd.fatbin").find("\x7f" "ELF"), std::string::npos);
  EXPECT_LT(fs::file_size(dir / "lz4.fatbin"), fs::file_size(dir / "plain.fatbin"));

  for (const char* name : {"app", "plain.fatbin", "zstd.fatbin", "lz4.fatbin", "k.cubin"}) {
    const auto kernels = read_cuda_kernels(dir / name);
    EXPECT_EQ(kernels.size(), std::string(name) == "k.cubin" ? 6u : 12u) << name;
    for (const auto& k : kernels) {
      auto it = report.find({k.arch, k.name});
      ASSERT_NE(it, report.end()) << name << ": " << k.arch << " " << k.name;
      const PtxasFigures& f = it->second;
      EXPECT_EQ(k.registers, f.registers) << name << ": " << k.arch << " " << k.name;
      EXPECT_EQ(k.shared_bytes, f.shared) << name << ": " << k.arch << " " << k.name;
      EXPECT_EQ(k.stack_bytes, f.stack) << name << ": " << k.arch << " " << k.name;
      EXPECT_EQ(k.local_bytes, 0) << name << ": " << k.name;
      if (f.constant >= 0) {
        EXPECT_EQ(k.constant_bytes, f.constant) << name << ": " << k.arch << " " << k.name;
      }
    }
  }
  // What the kernels were written to use.
  const auto kernels = read_cuda_kernels(dir / "k.cubin");
  std::map<std::string, CudaKernelInfo> by_name;
  for (const auto& k : kernels) by_name[k.name] = k;
  EXPECT_EQ(by_name["_Z13static_sharedPf"].shared_bytes, 4000);
  EXPECT_EQ(by_name["_Z11local_arrayPfPKi"].stack_bytes, 1024);
  EXPECT_GT(by_name["_Z16many_live_valuesPfPKf"].stack_bytes, 0);  // spills
}

// What a capture needs of a cubin: its kernels, and the module-scope variables to restore by name.
TEST(CudaBinary, CubinSymbolsNameKernelsAndVariables) {
  if (!nvcc()) GTEST_SKIP() << "nvcc not found";
  const fs::path dir = test::fresh_dir("symbols");
  compile({"-arch=sm_90", "-cubin", "-o", (dir / "t.cubin").string(),
           (test::source_dir() / "tests/gpu/programs/isolate_targets.cu").string()});
  const auto symbols = read_cubin_symbols(test::read_text(dir / "t.cubin"), "t.cubin");
  EXPECT_EQ(symbols.variables, (std::vector<std::string>{"g_launches", "g_scale"}));
  EXPECT_EQ(symbols.kernels.size(), 6u);
  EXPECT_TRUE(std::binary_search(symbols.kernels.begin(), symbols.kernels.end(), "_Z12inplace_axpyPffi"));
  EXPECT_THROW(read_cubin_symbols(std::string(64, 'x'), "junk"), Error);
}

// sm_90 and sm_90a machine code differ (CUTLASS's warp-specialized kernels have other register
// counts), so they are told apart: by the fatbin entry's flags, or a bare cubin's .nv.compat.
TEST(CudaBinary, TellsArchSpecificAndFamilyTargetsApart) {
  if (!nvcc()) GTEST_SKIP() << "nvcc not found";
  const fs::path dir = test::fresh_dir("variants");
  const std::string source = resource_kernels_source().string();
  compile({"-gencode", "arch=compute_90,code=sm_90", "-gencode", "arch=compute_90a,code=sm_90a", "-gencode",
           "arch=compute_100f,code=sm_100f", "-fatbin", "-o", (dir / "variants.fatbin").string(), source});
  compile({"-arch=sm_90a", "-cubin", "-o", (dir / "a.cubin").string(), source});
  std::map<std::string, int> per_arch;
  for (const auto& k : read_cuda_kernels(dir / "variants.fatbin")) ++per_arch[k.arch];
  EXPECT_EQ(per_arch, (std::map<std::string, int>{{"sm_100f", 6}, {"sm_90", 6}, {"sm_90a", 6}}));
  for (const auto& k : read_cuda_kernels(dir / "a.cubin")) EXPECT_EQ(k.arch, "sm_90a") << k.name;
  const MappedFile fatbin(dir / "variants.fatbin");
  EXPECT_EQ(cuda_arches(fatbin.bytes(), "variants"), (std::vector<std::string>{"sm_100f", "sm_90", "sm_90a"}));
  // Filters: an arch that is refused is not decompressed; a kernel filter sees mangled names.
  CudaKernelFilter filter;
  filter.arch = [](const std::string& arch) { return arch == "sm_90a"; };
  filter.kernel = [](const std::string& name) { return name.find("static_shared") != std::string::npos; };
  const auto some = read_cuda_kernels(fatbin.bytes(), "variants", filter, 2);
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some[0].arch, "sm_90a");
  EXPECT_EQ(some[0].name, "_Z13static_sharedPf");
  // One thread or several: the same kernels in the same order.
  const auto one = read_cuda_kernels(fatbin.bytes(), "variants", {}, 1);
  const auto many = read_cuda_kernels(fatbin.bytes(), "variants", {}, 8);
  ASSERT_EQ(one.size(), many.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(std::tie(one[i].arch, one[i].name, one[i].registers),
                                                    std::tie(many[i].arch, many[i].name, many[i].registers));
}

void expect_bad_input(const fs::path& file, const std::string& message) {
  try {
    read_cuda_kernels(file);
    ADD_FAILURE() << file << " was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(CudaBinary, RejectsBrokenBinaries) {
  const fs::path dir = test::fresh_dir("broken-cuda");
  // Made by hand: a fatbin header that claims more than the file holds.
  std::string claim("\x50\xed\x55\xba\x01\x00\x10\x00", 8);
  claim += std::string("\xff\xff\xff\x00\x00\x00\x00\x00", 8);
  write_output_file(dir / "claims.fatbin", claim + std::string(64, '\0'));
  expect_bad_input(dir / "claims.fatbin", "extends past its end");
  expect_bad_input("/bin/true", "no CUDA device code");
  // Found by the fuzzer: 5.8 KB of entries claiming up to 1 GiB uncompressed each, which were
  // allocated and zeroed before the entry was found corrupt (seconds and 0.5 GB per file).
  auto peak_kb = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
  };
  const long before = peak_kb();
  expect_bad_input(test::source_dir() / "tests/fixtures/fuzz_regressions/cuda_fatbin_huge_sizes.fatbin", "out of range");
  EXPECT_LT(peak_kb() - before, 64 * 1024) << "KB more at peak";
  if (!nvcc()) GTEST_SKIP() << "nvcc not found: the cases made by nvcc did not run";
  const std::string source = resource_kernels_source().string();
  compile({"-arch=sm_90", "-fatbin", "--compress-mode=size", "-o", (dir / "zstd.fatbin").string(), source});
  const std::string good = test::read_text(dir / "zstd.fatbin");
  write_output_file(dir / "truncated.fatbin", good.substr(0, good.size() / 2));
  expect_bad_input(dir / "truncated.fatbin", "extends past its end");
  // The first entry is the compressed cubin: its payload starts after 16 + 64 header bytes.
  ASSERT_EQ(good.substr(80, 4), "\x28\xb5\x2f\xfd");  // zstd's magic
  std::string corrupt = good;
  for (size_t i = 84; i < 120; ++i) corrupt[i] = static_cast<char>(~corrupt[i]);
  write_output_file(dir / "corrupt.fatbin", corrupt);
  expect_bad_input(dir / "corrupt.fatbin", "corrupt zstd-compressed cubin");
  compile({"-gencode", "arch=compute_90,code=compute_90", "-fatbin", "-o", (dir / "ptx.fatbin").string(), source});
  expect_bad_input(dir / "ptx.fatbin", "PTX only");
}

// One damaged copy of a real binary per refusal the readers make, each with its own message.
// Offsets are those of nvcc's layout: a 16-byte fatbin header, then a 64-byte entry header whose
// payload size is at +8, compressed size at +16 and uncompressed size at +56.
TEST(CudaBinary, EachKindOfDamageIsNamed) {
  const fs::path dir = test::fresh_dir("damaged-cuda");
  write_output_file(dir / "notes.txt", "plain text, not GPU code");
  expect_bad_input(dir / "notes.txt", "not a CUDA binary");
  if (!nvcc()) GTEST_SKIP() << "nvcc not found: the cases made by nvcc did not run";
  const std::string source = resource_kernels_source().string();
  compile({"-arch=sm_90", "-fatbin", "--compress-mode=none", "-o", (dir / "plain.fatbin").string(), source});
  compile({"-arch=sm_90", "-fatbin", "--compress-mode=speed", "-Xfatbin", "-compress-all", "-o",
           (dir / "lz4.fatbin").string(), source});
  compile({"-arch=sm_90", "-cubin", "-o", (dir / "k.cubin").string(), source});
  const std::string plain = test::read_text(dir / "plain.fatbin"), lz4 = test::read_text(dir / "lz4.fatbin");
  const std::string cubin = test::read_text(dir / "k.cubin");
  ASSERT_EQ(plain.substr(80, 4), "\x7f" "ELF");  // the first entry is the cubin, stored plain
  auto damaged = [&](const std::string& name, std::string bytes, size_t at, const std::string& with) {
    bytes.replace(at, with.size(), with);
    write_output_file(dir / name, bytes);
    return dir / name;
  };
  const std::string huge("\xff\xff\xff\x7f", 4), zero(4, '\0');
  expect_bad_input(damaged("body.fatbin", plain, 8, std::string("\x20\0\0\0", 4)), "truncated fatbin entry header");
  expect_bad_input(damaged("entry.fatbin", plain, 16 + 8, huge), "fatbin entry extends past its fatbin");
  expect_bad_input(damaged("machine.fatbin", plain, 80 + 18, std::string("\x3e\0", 2)),
                   "ELF image is not CUDA device code (e_machine 62)");
  expect_bad_input(damaged("lz4.fatbin", lz4, 80 + 8, std::string(40, '\x55')), "corrupt LZ4-compressed cubin");
  expect_bad_input(damaged("csize.fatbin", lz4, 16 + 16, huge), "compressed size out of range");
  expect_bad_input(damaged("usize.fatbin", lz4, 16 + 56, zero), "uncompressed size 0 out of range");
  expect_bad_input(damaged("class.cubin", cubin, 4, std::string("\x01", 1)), "32-bit CUDA ELF images are not supported");
  // The module-wide .nv.info's first register count (format 4, attribute 0x2f, 8 bytes), made to
  // claim more bytes than its section holds.
  const size_t regcount = cubin.find(std::string("\x04\x2f\x08\x00", 4));
  ASSERT_NE(regcount, std::string::npos);
  expect_bad_input(damaged("info.cubin", cubin, regcount + 2, std::string("\xff\xff", 2)),
                   ".nv.info attribute runs past the section");
}

// Cut and flipped copies of real binaries: each is read or refused as bad input, never a crash
// (the ASan build runs this too).
TEST(CudaBinary, SurvivesMangledBinaries) {
  if (!nvcc()) GTEST_SKIP() << "nvcc not found";
  const fs::path dir = test::fresh_dir("mangled-cuda");
  const std::string source = resource_kernels_source().string();
  compile(with(kTwoArches, {"-fatbin", "--compress-mode=none", "-o", (dir / "plain.fatbin").string(), source}));
  compile(with(kTwoArches, {"-fatbin", "--compress-mode=size", "-o", (dir / "zstd.fatbin").string(), source}));
  std::mt19937 random(20261122);
  int refused = 0, read = 0;
  for (const char* name : {"plain.fatbin", "zstd.fatbin"}) {
    const std::string good = test::read_text(dir / name);
    for (int i = 0; i < 150; ++i) {
      std::string bad = good;
      if (i % 3 == 0) {
        bad.resize(random() % good.size());
      } else {
        for (int flips = 0; flips < 1 + i % 8; ++flips) bad[random() % bad.size()] = static_cast<char>(random());
      }
      write_output_file(dir / "mangled", bad);
      try {
        read_cuda_kernels(dir / "mangled");
        ++read;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), Errc::bad_input) << e.what();
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0);
  std::cout << "mangled binaries: " << read << " read, " << refused << " refused\n";
}

TEST(CudaBinary, RecognizesCubinsFatbinsAndExecutables) {
  const fs::path source = test::source_dir() / "examples/softmax/softmax_testbed.cu";
  const fs::path dir = test::fresh_dir("nvcc");
  if (!nvcc()) GTEST_SKIP() << "nvcc not found";
  for (const auto& [flag, name] : std::vector<std::pair<std::string, std::string>>{
           {"-cubin", "k.cubin"}, {"-fatbin", "k.fatbin"}, {"", "k_app"}}) {
    std::vector<std::string> args = {"-arch=sm_90", "-o", (dir / name).string(), source.string()};
    if (!flag.empty()) args.insert(args.begin(), flag);
    compile(args);
    EXPECT_TRUE(is_cuda_binary(test::read_text(dir / name))) << name;
  }
  EXPECT_FALSE(is_cuda_binary(test::read_text("/bin/true")));
  auto kernels = read_cuda_kernels(dir / "k_app");
  ASSERT_EQ(kernels.size(), 2u);  // softmax_naive, and spin_kernel from the shared header
  EXPECT_EQ(kernels[1].name, "_Z13softmax_naivePKfPfii");
}

}  // namespace
}  // namespace rpl::codeobj
