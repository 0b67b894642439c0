// The AMD capture tool (librpl_hsa_capture.so) against a stand-in HSA runtime: the API table ROCr
// would hand to OnLoad, filled with functions that keep "device" memory in host buffers, report one
// kernel in one executable, and run a dispatch by changing a buffer when its packet is written. No
// AMD GPU is needed, and none has run the tool: this checks what it does with what it is given.
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <rpl/isolate/region_store.hpp>
#include <rpl/isolate/snapshot.hpp>

#include "test_support.hpp"

namespace rpl::test {
namespace {
namespace fs = std::filesystem;

constexpr uint64_t kKernelObject = 0x1000, kOtherKernelObject = 0x2000;
const char* const kSymbolName = "_Z5scalePfi.kd";
// The start of an AMD code object: the ELF magic and machine EM_AMDGPU (224).
const std::string kImage = std::string("\x7f" "ELF", 4) + std::string(14, '\x01') + std::string("\xe0\x00", 2) + std::string(44, '\x01');

struct Fake {
  std::vector<float*> buffers;
  std::vector<std::vector<uint16_t>> written;  // the header of each packet forwarded to the "hardware"
  hsa_amd_queue_intercept_handler handler = nullptr;
  void* handler_data = nullptr;
  uint64_t next_signal = 1;
};
Fake fake;

hsa_status_t status_string(hsa_status_t, const char** text) {
  *text = "stand-in error";
  return HSA_STATUS_SUCCESS;
}
hsa_status_t pool_allocate(hsa_amd_memory_pool_t, size_t size, uint32_t, void** ptr) {
  *ptr = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
  return HSA_STATUS_SUCCESS;
}
hsa_status_t pool_free(void* ptr) {
  std::free(ptr);
  return HSA_STATUS_SUCCESS;
}
hsa_status_t pool_get_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t, void* value) {
  *static_cast<uint32_t*>(value) = pool.handle == 2 ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT
                                                    : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
  return HSA_STATUS_SUCCESS;
}
hsa_status_t reader_create(const void*, size_t, hsa_code_object_reader_t* reader) {
  reader->handle = 11;
  return HSA_STATUS_SUCCESS;
}
hsa_status_t load_code_object(hsa_executable_t, hsa_agent_t, hsa_code_object_reader_t, const char*, hsa_loaded_code_object_t*) {
  return HSA_STATUS_SUCCESS;
}
hsa_status_t freeze(hsa_executable_t, const char*) { return HSA_STATUS_SUCCESS; }
hsa_status_t iterate_symbols(hsa_executable_t e, hsa_status_t (*callback)(hsa_executable_t, hsa_executable_symbol_t, void*),
                             void* data) {
  return callback(e, hsa_executable_symbol_t{21}, data);
}
hsa_status_t symbol_info(hsa_executable_symbol_t, hsa_executable_symbol_info_t attribute, void* value) {
  switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE: *static_cast<hsa_symbol_kind_t*>(value) = HSA_SYMBOL_KIND_KERNEL; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH: *static_cast<uint32_t*>(value) = std::strlen(kSymbolName); break;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME: std::memcpy(value, kSymbolName, std::strlen(kSymbolName)); break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: *static_cast<uint64_t*>(value) = kKernelObject; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: *static_cast<uint32_t*>(value) = 16; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: *static_cast<uint32_t*>(value) = 256; break;
    case HSA_EXECUTABLE_SYMBOL_INFO_AGENT: static_cast<hsa_agent_t*>(value)->handle = 7; break;
    default: *static_cast<uint32_t*>(value) = 0; break;
  }
  return HSA_STATUS_SUCCESS;
}
hsa_status_t agent_info(hsa_agent_t, hsa_agent_info_t attribute, void* value) {
  std::strcpy(static_cast<char*>(value), attribute == HSA_AGENT_INFO_NAME ? "gfx942" : "AMD Instinct MI300X");
  return HSA_STATUS_SUCCESS;
}
hsa_status_t memory_copy(void* dst, const void* src, size_t size) {
  std::memcpy(dst, src, size);
  return HSA_STATUS_SUCCESS;
}
hsa_status_t signal_create(hsa_signal_value_t, uint32_t, const hsa_agent_t*, hsa_signal_t* signal) {
  signal->handle = fake.next_signal++;
  return HSA_STATUS_SUCCESS;
}
hsa_signal_value_t signal_wait(hsa_signal_t, hsa_signal_condition_t, hsa_signal_value_t, uint64_t, hsa_wait_state_t) { return 0; }
hsa_status_t signal_destroy(hsa_signal_t) { return HSA_STATUS_SUCCESS; }
hsa_status_t intercept_create(hsa_agent_t, uint32_t, hsa_queue_type32_t, void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t,
                              uint32_t, hsa_queue_t** queue) {
  static hsa_queue_t q{};
  *queue = &q;
  return HSA_STATUS_SUCCESS;
}
hsa_status_t intercept_register(hsa_queue_t* queue, hsa_amd_queue_intercept_handler handler, void*) {
  fake.handler = handler;
  fake.handler_data = queue;
  return HSA_STATUS_SUCCESS;
}
// The "hardware": a dispatch of the kernel doubles the first buffer's first element.
void writer(const void* packets, uint64_t count) {
  const auto* p = static_cast<const hsa_kernel_dispatch_packet_t*>(packets);
  std::vector<uint16_t> headers;
  for (uint64_t i = 0; i < count; ++i) {
    headers.push_back(p[i].header & 0xff);
    if ((p[i].header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH && p[i].kernel_object == kKernelObject) fake.buffers[0][0] *= 2;
  }
  fake.written.push_back(headers);
}

TEST(HsaCaptureTool, CapturesTheChosenDispatchFromWhatTheRuntimeReports) {
  const fs::path library = build_dir() / "lib" / "librpl_hsa_capture.so";
  if (!fs::exists(library)) GTEST_SKIP() << "the AMD capture tool is not built (no HSA headers)";
  const fs::path dir = fresh_dir("hsa-capture");
  setenv("RPL_CAPTURE_DIR", dir.c_str(), 1);
  setenv("RPL_CAPTURE_KERNEL", "scale", 1);
  setenv("RPL_CAPTURE_DISPATCH", "1", 1);
  void* tool = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(tool, nullptr) << dlerror();
  using OnLoadFn = bool (*)(HsaApiTable*, uint64_t, uint64_t, const char* const*);
  auto on_load = reinterpret_cast<OnLoadFn>(dlsym(tool, "OnLoad"));
  ASSERT_NE(on_load, nullptr);

  CoreApiTable core{};
  AmdExtTable amd{};
  core.hsa_status_string_fn = status_string;
  core.hsa_code_object_reader_create_from_memory_fn = reader_create;
  core.hsa_executable_load_agent_code_object_fn = load_code_object;
  core.hsa_executable_freeze_fn = freeze;
  core.hsa_executable_iterate_symbols_fn = iterate_symbols;
  core.hsa_executable_symbol_get_info_fn = symbol_info;
  core.hsa_agent_get_info_fn = agent_info;
  core.hsa_memory_copy_fn = memory_copy;
  core.hsa_signal_create_fn = signal_create;
  core.hsa_signal_wait_scacquire_fn = signal_wait;
  core.hsa_signal_destroy_fn = signal_destroy;
  amd.hsa_amd_memory_pool_allocate_fn = pool_allocate;
  amd.hsa_amd_memory_pool_free_fn = pool_free;
  amd.hsa_amd_memory_pool_get_info_fn = pool_get_info;
  amd.hsa_amd_queue_intercept_create_fn = intercept_create;
  amd.hsa_amd_queue_intercept_register_fn = intercept_register;
  HsaApiTable table{};
  table.core_ = &core;
  table.amd_ext_ = &amd;
  ASSERT_TRUE(on_load(&table, 1, 0, nullptr));
  ASSERT_NE(core.hsa_queue_create_fn, nullptr);  // wrapped: the program's queues become intercept queues

  // What a HIP program does: allocate, load its code object, make a queue, dispatch.
  void* a = nullptr;
  void* kernarg_buffer = nullptr;
  ASSERT_EQ(amd.hsa_amd_memory_pool_allocate_fn(hsa_amd_memory_pool_t{1}, 4096, 0, &a), HSA_STATUS_SUCCESS);
  ASSERT_EQ(amd.hsa_amd_memory_pool_allocate_fn(hsa_amd_memory_pool_t{2}, 64, 0, &kernarg_buffer), HSA_STATUS_SUCCESS);
  fake.buffers.push_back(static_cast<float*>(a));
  for (int i = 0; i < 1024; ++i) fake.buffers[0][i] = static_cast<float>(i + 1);
  hsa_code_object_reader_t reader{};
  core.hsa_code_object_reader_create_from_memory_fn(kImage.data(), kImage.size(), &reader);
  core.hsa_executable_load_agent_code_object_fn(hsa_executable_t{5}, hsa_agent_t{7}, reader, nullptr, nullptr);
  core.hsa_executable_freeze_fn(hsa_executable_t{5}, nullptr);
  hsa_queue_t* queue = nullptr;
  ASSERT_EQ(core.hsa_queue_create_fn(hsa_agent_t{7}, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, 0, 0, &queue), HSA_STATUS_SUCCESS);
  ASSERT_NE(fake.handler, nullptr);
  std::memcpy(kernarg_buffer, &a, 8);
  const int n = 1024;
  std::memcpy(static_cast<char*>(kernarg_buffer) + 8, &n, 4);
  hsa_kernel_dispatch_packet_t packets[3]{};
  for (auto& p : packets) {
    p.header = HSA_PACKET_TYPE_KERNEL_DISPATCH;
    p.workgroup_size_x = 256, p.workgroup_size_y = 1, p.workgroup_size_z = 1;
    p.grid_size_x = 1000, p.grid_size_y = 1, p.grid_size_z = 1;
    p.group_segment_size = 1280;
    p.kernel_object = kKernelObject;
    p.kernarg_address = kernarg_buffer;
  }
  packets[1].kernel_object = kOtherKernelObject;  // a kernel the tool never saw: not counted
  fake.handler(packets, 3, 0, fake.handler_data, writer);  // dispatch 0 of scale, an unknown one, dispatch 1 of scale

  // Forwarded in order: the first two, a barrier to drain them, the captured dispatch, a barrier.
  ASSERT_EQ(fake.written.size(), 4u);
  EXPECT_EQ(fake.written[0], (std::vector<uint16_t>{HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_PACKET_TYPE_KERNEL_DISPATCH}));
  EXPECT_EQ(fake.written[1], (std::vector<uint16_t>{HSA_PACKET_TYPE_BARRIER_AND}));
  EXPECT_EQ(fake.written[2], (std::vector<uint16_t>{HSA_PACKET_TYPE_KERNEL_DISPATCH}));
  EXPECT_EQ(fake.written[3], (std::vector<uint16_t>{HSA_PACKET_TYPE_BARRIER_AND}));

  const auto snap = isolate::read_snapshot(dir);  // a complete, valid snapshot
  EXPECT_EQ(snap.dispatch.vendor, "amd");
  EXPECT_EQ(snap.dispatch.architecture, "gfx942");
  EXPECT_EQ(snap.dispatch.mangled_name, "_Z5scalePfi");
  EXPECT_EQ(snap.dispatch.kernel_name, "scale(float*, int)");
  EXPECT_EQ(snap.dispatch.dispatch_index, 1u);
  EXPECT_EQ(snap.dispatch.grid, (std::array<uint32_t, 3>{4, 1, 1}));  // 1000 work-items in blocks of 256
  EXPECT_EQ(snap.dispatch.static_shared_bytes, 256u);
  EXPECT_EQ(snap.dispatch.dynamic_shared_bytes, 1024u);
  EXPECT_EQ(read_text(dir / "kernel.hsaco"), kImage);
  ASSERT_EQ(snap.memory.regions.size(), 1u);  // the kernel-argument pool's buffer is not device memory
  EXPECT_EQ(snap.memory.regions[0].base, reinterpret_cast<uint64_t>(a));
  float before = 0, after = 0;
  std::memcpy(&before, isolate::read_region(dir, snap.memory.regions[0]).data(), 4);
  const auto after_image = isolate::read_memory_image(dir / "after");
  std::memcpy(&after, isolate::read_region(after_image.dir, after_image.regions[0]).data(), 4);
  EXPECT_EQ(before, 2.0f);  // the first dispatch had run before the capture
  EXPECT_EQ(after, 4.0f);   // and the captured one after it
  const auto status = nlohmann::json::parse(read_text(dir / "capture_status.json"));
  EXPECT_TRUE(status["captured"].get<bool>());
  amd.hsa_amd_memory_pool_free_fn(a);
  amd.hsa_amd_memory_pool_free_fn(kernarg_buffer);
}

}  // namespace
}  // namespace rpl::test
