#include <rpl/isolate/snapshot.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/region_store.hpp>

namespace rpl::isolate {
namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

namespace {

constexpr uint64_t kMaxMetadataBytes = 64ull << 20;
constexpr uint16_t kEmCuda = 190, kEmAmdgpu = 224;  // ELF e_machine of a cubin and of an AMD code object

ordered_json read_json(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) fail(Errc::bad_input, "{}: missing (a snapshot folder holds dispatch.json and memory_regions.json)", file.string());
  try {
    return ordered_json::parse(read_file(file, kMaxMetadataBytes));
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers past double
    fail(Errc::bad_input, "{}: not JSON: {}", file.string(), e.what());
  }
}

// Typed access that names the file and the key when the document is not the format.
class Fields {
 public:
  Fields(const ordered_json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail(Errc::bad_input, "{}: expected an object", where_);
  }
  const ordered_json& at(const char* key) const {
    if (!j_.contains(key)) fail(Errc::bad_input, "{}: no \"{}\"", where_, key);
    return j_[key];
  }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  std::string text(const char* key) const {
    const auto& v = at(key);
    if (!v.is_string()) fail(Errc::bad_input, "{}: \"{}\" is not a string", where_, key);
    return v.get<std::string>();
  }
  uint64_t count(const char* key) const {
    const auto& v = at(key);
    if (!v.is_number_unsigned()) fail(Errc::bad_input, "{}: \"{}\" is not a non-negative integer", where_, key);
    return v.get<uint64_t>();
  }
  uint64_t address(const char* key) const {
    const std::string s = text(key);
    uint64_t v = 0;
    const char* end = s.data() + s.size();
    if (s.size() < 3 || s.compare(0, 2, "0x") != 0 || std::from_chars(s.data() + 2, end, v, 16).ptr != end) {
      fail(Errc::bad_input, "{}: \"{}\" is not a hexadecimal address like \"0x7f0000000000\"", where_, key);
    }
    return v;
  }
  std::array<uint32_t, 3> dim3(const char* key) const {
    const auto& v = at(key);
    if (!v.is_array() || v.size() != 3) fail(Errc::bad_input, "{}: \"{}\" is not three sizes", where_, key);
    std::array<uint32_t, 3> out{};
    for (size_t i = 0; i < 3; ++i) {
      if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() == 0 || v[i].get<uint64_t>() > UINT32_MAX) {
        fail(Errc::bad_input, "{}: \"{}\" holds a size that is not 1 to 2^32-1", where_, key);
      }
      out[i] = v[i].get<uint32_t>();
    }
    return out;
  }
  const std::string& where() const { return where_; }

 private:
  const ordered_json& j_;
  std::string where_;
};

// A relative file name inside the folder, never a way out of it.
std::string inner_file(const Fields& f, const char* key) {
  const std::string name = f.text(key);
  const fs::path p(name);
  if (name.empty() || p.is_absolute() || std::any_of(p.begin(), p.end(), [](const fs::path& part) { return part == ".."; })) {
    fail(Errc::bad_input, "{}: \"{}\" must name a file inside the folder, not '{}'", f.where(), key, name);
  }
  return name;
}

// The code object must at least be an ELF file for the vendor's GPUs; whether the driver accepts it
// is for the replayer to find out.
void check_code_object(const fs::path& file, const std::string& vendor) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) == 0) {
    fail(Errc::bad_input, "{}: missing or empty (the kernel's code object)", file.string());
  }
  std::string head(20, '\0');
  std::ifstream in(file, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const uint16_t expected = vendor == "nvidia" ? kEmCuda : kEmAmdgpu;
  uint16_t machine = 0;
  if (head.size() >= 20) std::memcpy(&machine, head.data() + 18, 2);
  if (head.compare(0, 4, "\x7f" "ELF") != 0 || machine != expected) {
    fail(Errc::bad_input, "{}: not a code object for {} GPUs (corrupted or of another kind)", file.string(),
         vendor == "nvidia" ? "NVIDIA" : "AMD");
  }
}

}  // namespace

void check_file_size(const fs::path& file, uint64_t size, const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) fail(Errc::bad_input, "{}: missing ({})", file.string(), what);
  const auto actual = fs::file_size(file, ec);
  if (ec || actual != size) {
    fail(Errc::bad_input, "{}: {} bytes, but {} says {}", file.string(), ec ? 0 : actual, what, size);
  }
}

std::string hex_address(uint64_t address) { return fmt::format("0x{:016x}", address); }
std::string region_file_name(uint64_t base) { return "memory/region_" + hex_address(base) + ".bin"; }

MemoryImage read_memory_image(const fs::path& dir) {
  const fs::path file = dir / "memory_regions.json";
  const auto doc = read_json(file);
  Fields top(doc, file.string());
  if (top.text("format") != kSnapshotFormat) fail(Errc::bad_input, "{}: not a rocm-perf snapshot (format)", file.string());
  const auto& list = top.at("regions");
  if (!list.is_array()) fail(Errc::bad_input, "{}: \"regions\" is not a list", file.string());
  MemoryImage image;
  image.dir = dir;
  for (size_t i = 0; i < list.size(); ++i) {
    Fields f(list[i], fmt::format("{}: region {}", file.string(), i + 1));
    MemoryRegion r;
    r.base = f.address("base");
    r.size = f.count("size");
    r.kind = f.text("kind");
    r.file = inner_file(f, "file");
    if (f.has("encoding")) r.encoding = f.text("encoding");  // absent in format 1.0: raw
    if (r.encoding != "raw" && r.encoding != "chunks") {
      fail(Errc::bad_input, "{}: encoding '{}' is neither raw nor chunks (a newer format?)", f.where(), r.encoding);
    }
    if (r.size == 0) fail(Errc::bad_input, "{}: size 0", f.where());
    if (r.base + r.size < r.base) fail(Errc::bad_input, "{}: base + size passes 2^64", f.where());
    check_region_file(dir, r, fmt::format("region {} at {}", i + 1, hex_address(r.base)));
    image.regions.push_back(std::move(r));
  }
  std::sort(image.regions.begin(), image.regions.end(), [](const auto& a, const auto& b) { return a.base < b.base; });
  for (size_t i = 1; i < image.regions.size(); ++i) {
    const auto& prev = image.regions[i - 1];
    if (prev.base + prev.size > image.regions[i].base) {
      fail(Errc::bad_input, "{}: regions at {} and {} overlap", file.string(), hex_address(prev.base),
           hex_address(image.regions[i].base));
    }
  }
  return image;
}

Snapshot read_snapshot(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fail(Errc::bad_input, "{}: not a snapshot folder (no such folder)", dir.string());
  const fs::path file = dir / "dispatch.json";
  const auto doc = read_json(file);
  Fields top(doc, file.string());
  if (top.text("format") != kSnapshotFormat) fail(Errc::bad_input, "{}: not a rocm-perf snapshot (format)", file.string());
  Snapshot s;
  s.dir = dir;
  auto& d = s.dispatch;
  d.vendor = top.text("vendor");
  if (d.vendor != "nvidia" && d.vendor != "amd") fail(Errc::bad_input, "{}: vendor '{}' is neither nvidia nor amd", file.string(), d.vendor);
  Fields device(top.at("device"), file.string() + ": device");
  d.device_name = device.text("name");
  d.architecture = device.text("architecture");
  Fields kernel(top.at("kernel"), file.string() + ": kernel");
  d.kernel_name = kernel.text("name");
  d.mangled_name = kernel.text("mangled_name");
  d.code_object = inner_file(kernel, "code_object");
  d.dispatch_index = kernel.count("dispatch_index");
  Fields launch(top.at("launch"), file.string() + ": launch");
  d.grid = launch.dim3("grid");
  d.block = launch.dim3("block");
  if (launch.has("cluster")) d.cluster = launch.dim3("cluster");
  if (launch.has("cooperative")) {
    const auto& v = launch.at("cooperative");
    if (!v.is_boolean()) fail(Errc::bad_input, "{}: \"cooperative\" is not true or false", launch.where());
    d.cooperative = v.get<bool>();
  }
  d.static_shared_bytes = static_cast<uint32_t>(launch.count("static_shared_bytes"));
  d.dynamic_shared_bytes = static_cast<uint32_t>(launch.count("dynamic_shared_bytes"));
  d.scratch_bytes = static_cast<uint32_t>(launch.count("scratch_bytes"));
  Fields kernarg(top.at("kernarg"), file.string() + ": kernarg");
  d.kernarg_size = kernarg.count("size");
  const auto& args = kernarg.at("arguments");
  if (!args.is_array()) fail(Errc::bad_input, "{}: kernarg.arguments is not a list", file.string());
  for (size_t i = 0; i < args.size(); ++i) {
    Fields a(args[i], fmt::format("{}: argument {}", file.string(), i));
    KernelArgument arg{a.count("offset"), a.count("size")};
    if (arg.offset + arg.size > d.kernarg_size || arg.offset + arg.size < arg.offset) {
      fail(Errc::bad_input, "{}: bytes {}..{} lie outside the {}-byte argument buffer", a.where(), arg.offset,
           arg.offset + arg.size, d.kernarg_size);
    }
    d.arguments.push_back(arg);
  }
  const auto& globals = top.at("globals");
  if (!globals.is_array()) fail(Errc::bad_input, "{}: \"globals\" is not a list", file.string());
  for (size_t i = 0; i < globals.size(); ++i) {
    Fields g(globals[i], fmt::format("{}: global {}", file.string(), i + 1));
    GlobalVariable v{g.text("name"), g.address("address"), g.count("size"), inner_file(g, "file")};
    check_file_size(dir / v.file, v.size, "global " + v.name);
    d.globals.push_back(std::move(v));
  }
  check_file_size(dir / "kernarg.bin", d.kernarg_size, "dispatch.json's kernarg.size");
  check_code_object(dir / d.code_object, d.vendor);
  // An AMD snapshot replays the AQL packet as it was submitted.
  if (d.vendor == "amd") check_file_size(dir / "dispatch_packet.bin", 64, "an AQL dispatch packet");
  s.memory = read_memory_image(dir);
  return s;
}

void write_memory_regions(const fs::path& dir, const std::vector<MemoryRegion>& regions) {
  ordered_json doc;
  doc["schema_version"] = kSnapshotVersion;
  doc["format"] = kSnapshotFormat;
  auto& list = doc["regions"] = ordered_json::array();
  for (const auto& r : regions) {
    list.push_back({{"base", hex_address(r.base)}, {"size", r.size}, {"kind", r.kind}, {"file", r.file}, {"encoding", r.encoding}});
  }
  write_output_file(dir / "memory_regions.json", doc.dump(2) + "\n");
}

void write_dispatch_record(const fs::path& dir, const DispatchRecord& d) {
  ordered_json doc;
  doc["schema_version"] = kSnapshotVersion;
  doc["format"] = kSnapshotFormat;
  doc["vendor"] = d.vendor;
  doc["device"] = {{"name", d.device_name}, {"architecture", d.architecture}};
  doc["kernel"] = {{"name", d.kernel_name},
                   {"mangled_name", d.mangled_name},
                   {"code_object", d.code_object},
                   {"dispatch_index", d.dispatch_index}};
  doc["launch"] = {{"grid", d.grid},
                   {"block", d.block},
                   {"cluster", d.cluster ? ordered_json(*d.cluster) : ordered_json()},
                   {"cooperative", d.cooperative},
                   {"static_shared_bytes", d.static_shared_bytes},
                   {"dynamic_shared_bytes", d.dynamic_shared_bytes},
                   {"scratch_bytes", d.scratch_bytes}};
  auto args = ordered_json::array();
  for (const auto& a : d.arguments) args.push_back({{"offset", a.offset}, {"size", a.size}});
  doc["kernarg"] = {{"file", "kernarg.bin"}, {"size", d.kernarg_size}, {"arguments", args}};
  auto globals = ordered_json::array();
  for (const auto& g : d.globals) {
    globals.push_back({{"name", g.name}, {"address", hex_address(g.address)}, {"size", g.size}, {"file", g.file}});
  }
  doc["globals"] = globals;
  write_output_file(dir / "dispatch.json", doc.dump(2) + "\n");
}

}  // namespace rpl::isolate
