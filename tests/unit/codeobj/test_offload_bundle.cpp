// Offload-bundle and ELF parsing on hand-built inputs, malformed ones included.
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include <rpl/codeobj/amd_code_object.hpp>
#include <rpl/core/demangle.hpp>
#include <rpl/core/error.hpp>

#include "test_support.hpp"

namespace rpl::codeobj {
namespace {
using test::error_code_of;

void put_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }

// A bundle with a host entry and one device entry holding `image`.
std::string make_bundle(const std::string& image, const std::string& device_id = "hipv4-amdgcn-amd-amdhsa--gfx90a") {
  const std::string host_id = "host-x86_64-unknown-linux-gnu";
  std::string header = "__CLANG_OFFLOAD_BUNDLE__";
  put_u64(header, 2);
  const size_t table = 2 * 24 + host_id.size() + device_id.size();
  const uint64_t data_offset = header.size() + table;
  put_u64(header, data_offset);
  put_u64(header, 0);
  put_u64(header, host_id.size());
  header += host_id;
  put_u64(header, data_offset);
  put_u64(header, image.size());
  put_u64(header, device_id.size());
  header += device_id;
  return header + image;
}

TEST(OffloadBundle, EntriesAreParsedAndHostSkipped) {
  const std::string bundle = make_bundle("IMAGE");  // the entries are views into it
  auto entries = parse_offload_bundle(bundle, "test");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(entries[0].second, "IMAGE");
}

TEST(OffloadBundle, TruncatedAndCorruptBundlesAreBadInput) {
  const std::string bundle = make_bundle("IMAGE");
  std::string message;
  EXPECT_EQ(error_code_of([&] { parse_offload_bundle(bundle.substr(0, 30), "b"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("truncated"), std::string::npos);
  EXPECT_EQ(error_code_of([&] { parse_offload_bundle(bundle.substr(0, bundle.size() - 2), "b"); }), Errc::bad_input);
  std::string huge = bundle;
  uint64_t count = 1ULL << 40;
  std::memcpy(huge.data() + 24, &count, 8);
  EXPECT_EQ(error_code_of([&] { parse_offload_bundle(huge, "b"); }), Errc::bad_input);
  EXPECT_EQ(error_code_of([&] { parse_offload_bundle("CCOB\x01\x00", "b"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("compressed offload bundle"), std::string::npos);
}

TEST(OffloadBundle, DeviceImageThatIsNotElfIsBadInput) {
  const auto path = test::fresh_dir("bundle") / "bad.co";
  std::ofstream(path, std::ios::binary) << make_bundle("not an ELF image");
  std::string message;
  EXPECT_EQ(error_code_of([&] { read_amd_code_objects(path); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("malformed ELF file"), std::string::npos);
}

TEST(CodeObjectFiles, NonGpuFilesAreBadInput) {
  const auto dir = test::fresh_dir("nongpu");
  std::string message;
  std::ofstream(dir / "text.txt") << "hello";
  EXPECT_EQ(error_code_of([&] { read_amd_code_objects(dir / "text.txt"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("not a GPU binary"), std::string::npos);
  std::ofstream{dir / "empty"};
  EXPECT_EQ(error_code_of([&] { read_amd_code_objects(dir / "empty"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("empty file"), std::string::npos);
  // A host ELF with no GPU code: this very test program.
  EXPECT_EQ(error_code_of([&] { read_amd_code_objects("/proc/self/exe"); }, &message), Errc::bad_input);
  EXPECT_NE(message.find("no GPU code"), std::string::npos);
  EXPECT_EQ(error_code_of([&] { read_amd_code_objects(dir / "missing"); }), Errc::bad_input);
}

// Inputs the fuzzer found (tests/fixtures/fuzz_regressions): each must be refused as bad input,
// quickly and without exhausting memory.
TEST(CodeObjectFiles, FuzzerFindingsAreBadInput) {
  // A metadata note whose msgpack map header declares 2^32 entries (it once asked for 128 GB).
  const auto file = test::source_dir() / "tests/fixtures/fuzz_regressions/amd_msgpack_huge_map.hsaco";
  try {
    read_amd_code_objects(file);
    ADD_FAILURE() << "read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_input);
    EXPECT_NE(std::string(e.what()).find("AMDGPU metadata note is not valid msgpack"), std::string::npos) << e.what();
  }
}

TEST(CodeObjectFiles, Demangle) {
  EXPECT_EQ(rpl::demangle("_Z5smallPfi"), "small(float*, int)");
  EXPECT_EQ(rpl::demangle("plain_c_name"), "plain_c_name");
  EXPECT_EQ(rpl::demangle("f"), "f") << "an extern \"C\" kernel named f, not the type float";
  EXPECT_EQ(rpl::demangle("Ss"), "Ss");
}

}  // namespace
}  // namespace rpl::codeobj
