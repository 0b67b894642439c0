#include <rpl/codeobj/amd_code_object.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

#include <msgpack.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/hal/arch.hpp>

#include "elf_image.hpp"

namespace rpl::codeobj {
namespace {

constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view kCompressedBundleMagic = "CCOB";
constexpr uint16_t kEmAmdgpu = 224;              // EM_AMDGPU
constexpr uint32_t kNtAmdgpuMetadata = 32;       // NT_AMDGPU_METADATA, owner "AMDGPU" (code object v3+)
constexpr uint32_t kEfAmdgpuMachMask = 0xff;

// EF_AMDGPU_MACH_* values (llvm/BinaryFormat/ELF.h), for code objects without amdhsa.target.
std::string arch_from_e_flags(uint32_t flags) {
  switch (flags & kEfAmdgpuMachMask) {
    case 0x030: return "gfx908";
    case 0x03f: return "gfx90a";
    case 0x040: return "gfx940";
    case 0x04b: return "gfx941";
    case 0x04c: return "gfx942";
    case 0x036: return "gfx1030";
    default: return "";
  }
}

const msgpack::object* map_find(const msgpack::object& map, std::string_view key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    const auto& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR && std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) == key) {
      return &kv.val;
    }
  }
  return nullptr;
}

int64_t map_int(const msgpack::object& map, std::string_view key, int64_t fallback) {
  const auto* v = map_find(map, key);
  if (!v) return fallback;
  if (v->type == msgpack::type::POSITIVE_INTEGER) return static_cast<int64_t>(v->via.u64);
  if (v->type == msgpack::type::NEGATIVE_INTEGER) return v->via.i64;
  return fallback;
}

std::string map_string(const msgpack::object& map, std::string_view key) {
  const auto* v = map_find(map, key);
  if (!v || v->type != msgpack::type::STR) return "";
  return std::string(v->via.str.ptr, v->via.str.size);
}

bool map_bool(const msgpack::object& map, std::string_view key) {
  const auto* v = map_find(map, key);
  return v && v->type == msgpack::type::BOOLEAN && v->via.boolean;
}

void read_metadata(std::string_view blob, AmdCodeObject& co, const std::string& origin) {
  msgpack::object_handle handle;
  try {
    // Counts a hostile note declares must fit in its bytes (an array entry takes one byte at least,
    // a map entry two): unchecked, a 5-byte map header asks for 2^32 entries, 128 GB (found by
    // fuzzing). Nesting is bounded too: metadata is a few levels deep.
    const msgpack::unpack_limit limit(blob.size(), blob.size() / 2, blob.size(), blob.size(), blob.size(), 32);
    handle = msgpack::unpack(blob.data(), blob.size(), nullptr, nullptr, limit);
  } catch (const std::exception& e) {
    fail(Errc::bad_input, "{}: AMDGPU metadata note is not valid msgpack ({})", origin, e.what());
  }
  const msgpack::object& root = handle.get();
  co.target = map_string(root, "amdhsa.target");
  const auto* kernels = map_find(root, "amdhsa.kernels");
  if (!kernels || kernels->type != msgpack::type::ARRAY) return;
  for (uint32_t i = 0; i < kernels->via.array.size; ++i) {
    const auto& k = kernels->via.array.ptr[i];
    AmdKernelInfo info;
    info.name = map_string(k, ".name");
    info.symbol = map_string(k, ".symbol");
    info.vgpr_count = map_int(k, ".vgpr_count", 0);
    info.agpr_count = map_int(k, ".agpr_count", 0);
    info.sgpr_count = map_int(k, ".sgpr_count", 0);
    info.vgpr_spill_count = map_int(k, ".vgpr_spill_count", 0);
    info.sgpr_spill_count = map_int(k, ".sgpr_spill_count", 0);
    info.group_segment_fixed_size = map_int(k, ".group_segment_fixed_size", 0);
    info.private_segment_fixed_size = map_int(k, ".private_segment_fixed_size", 0);
    info.kernarg_segment_size = map_int(k, ".kernarg_segment_size", 0);
    info.wavefront_size = map_int(k, ".wavefront_size", 64);
    info.max_flat_workgroup_size = map_int(k, ".max_flat_workgroup_size", 1024);
    info.uses_dynamic_stack = map_bool(k, ".uses_dynamic_stack");
    if (const auto* args = map_find(k, ".args"); args && args->type == msgpack::type::ARRAY) {
      for (uint32_t a = 0; a < args->via.array.size; ++a) {
        const auto& arg = args->via.array.ptr[a];
        info.arguments.push_back({map_int(arg, ".offset", 0), map_int(arg, ".size", 0), map_string(arg, ".value_kind")});
      }
    }
    co.kernels.push_back(std::move(info));
  }
}

// Notes are 4-byte aligned records: namesz, descsz, type, name, desc.
void read_notes(std::string_view notes, AmdCodeObject& co, const std::string& origin) {
  size_t at = 0;
  auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  while (at + 12 <= notes.size()) {
    uint32_t namesz, descsz, type;
    std::memcpy(&namesz, notes.data() + at, 4);
    std::memcpy(&descsz, notes.data() + at + 4, 4);
    std::memcpy(&type, notes.data() + at + 8, 4);
    at += 12;
    if (namesz > notes.size() - at || align4(namesz) > notes.size() - at) break;
    std::string_view name = notes.substr(at, namesz ? namesz - 1 : 0);  // without the NUL
    at += align4(namesz);
    if (descsz > notes.size() - at) fail(Errc::bad_input, "{}: ELF note extends past its section (truncated?)", origin);
    std::string_view desc = notes.substr(at, descsz);
    at += align4(descsz);
    if (name == "AMDGPU" && type == kNtAmdgpuMetadata) read_metadata(desc, co, origin);
  }
}

}  // namespace

AmdCodeObject parse_hsaco(std::string_view image, const std::string& origin) {
  const detail::ElfImage elf(image, origin);
  const GElf_Ehdr& ehdr = elf.header();
  if (ehdr.e_machine != kEmAmdgpu) fail(Errc::bad_input, "{}: ELF image is not for AMD GPUs (e_machine {})", origin, ehdr.e_machine);
  AmdCodeObject co;
  co.origin = origin;
  for (const auto& section : elf.sections()) {
    if (section.header.sh_type == SHT_NOTE) read_notes(section.data, co, origin);
  }
  co.arch = co.target.empty() ? arch_from_e_flags(static_cast<uint32_t>(ehdr.e_flags)) : hal::normalize_arch_name(co.target);
  if (co.target.empty()) co.target = co.arch;
  if (co.kernels.empty() && co.arch.empty()) {
    fail(Errc::bad_input, "{}: AMD GPU ELF without code object v3+ metadata (older code objects are not supported)", origin);
  }
  std::sort(co.kernels.begin(), co.kernels.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return co;
}

std::vector<std::pair<std::string, std::string_view>> parse_offload_bundle(std::string_view bundle, const std::string& origin) {
  if (bundle.substr(0, kCompressedBundleMagic.size()) == kCompressedBundleMagic) {
    fail(Errc::bad_input, "{}: compressed offload bundle (clang --offload-compress); decompress it with clang-offload-bundler first",
         origin);
  }
  if (bundle.substr(0, kBundleMagic.size()) != kBundleMagic) fail(Errc::bad_input, "{}: not a clang offload bundle", origin);
  auto read_u64 = [&](size_t at) {
    if (at + 8 > bundle.size()) fail(Errc::bad_input, "{}: truncated clang offload bundle", origin);
    uint64_t v;
    std::memcpy(&v, bundle.data() + at, 8);
    return v;
  };
  size_t at = kBundleMagic.size();
  const uint64_t count = read_u64(at);
  at += 8;
  if (count > 4096) fail(Errc::bad_input, "{}: offload bundle claims {} entries; corrupt", origin, count);
  std::vector<std::pair<std::string, std::string_view>> entries;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t offset = read_u64(at), size = read_u64(at + 8), id_len = read_u64(at + 16);
    at += 24;
    if (id_len > bundle.size() - std::min(at, bundle.size())) fail(Errc::bad_input, "{}: truncated clang offload bundle", origin);
    std::string id(bundle.substr(at, id_len));
    at += id_len;
    if (offset > bundle.size() || size > bundle.size() - offset) {
      fail(Errc::bad_input, "{}: offload bundle entry {} extends past the end (truncated?)", origin, id);
    }
    if (id.rfind("host-", 0) == 0 || size == 0) continue;
    entries.emplace_back(id, bundle.substr(offset, size));
  }
  return entries;
}

std::vector<AmdCodeObject> read_amd_code_objects(const std::filesystem::path& file) {
  return read_amd_code_objects(read_file(file), file.string());
}

std::vector<AmdCodeObject> read_amd_code_objects(std::string_view data, const std::string& name) {
  std::vector<AmdCodeObject> out;
  for_each_amd_image(data, name, [&](std::string_view image, const std::string& where) { out.push_back(parse_hsaco(image, where)); });
  return out;
}

void for_each_amd_image(std::string_view data, const std::string& name,
                        const std::function<void(std::string_view, const std::string&)>& f) {
  if (data.empty()) fail(Errc::bad_input, "{}: empty file", name);
  bool found = false;
  auto add_bundle = [&](std::string_view bundle, const std::string& where) {
    for (const auto& [id, image] : parse_offload_bundle(bundle, where)) {
      f(image, where + ": " + id);
      found = true;
    }
  };
  if (data.substr(0, kBundleMagic.size()) == kBundleMagic || data.substr(0, 4) == kCompressedBundleMagic) {
    add_bundle(data, name);
  } else if (detail::is_elf(data)) {
    const detail::ElfImage elf(data, name);
    if (elf.header().e_machine == kEmAmdgpu) {
      f(data, name);
    } else {
      for (const auto& section : elf.sections()) {
        if (section.name != ".hip_fatbin") continue;
        // One bundle per translation unit, each starting with the magic.
        std::string_view fatbin = section.data;
        for (size_t at = fatbin.find(kBundleMagic); at != std::string_view::npos; at = fatbin.find(kBundleMagic, at + 1)) {
          add_bundle(fatbin.substr(at), name + " (.hip_fatbin)");
        }
      }
      if (!found) fail(Errc::bad_input, "{}: ELF file with no GPU code (no .hip_fatbin or .nv_fatbin section)", name);
    }
  } else {
    fail(Errc::bad_input, "{}: not a GPU binary (an AMD code object, clang offload bundle, CUDA cubin or fatbin, or an "
                          "executable with embedded GPU code)", name);
  }
}

}  // namespace rpl::codeobj
