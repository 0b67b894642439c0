#include <rpl/backends/att_output.hpp>

#include <algorithm>
#include <charconv>
#include <type_traits>

#include <nlohmann/json.hpp>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

namespace rpl::backends {
namespace fs = std::filesystem;
namespace {

nlohmann::json parse(const fs::path& file) {
  auto j = nlohmann::json::parse(read_file(file), nullptr, false);
  if (j.is_discarded() || !j.is_object()) fail(Errc::bad_input, "{}: not a JSON object", file.string());
  return j;
}

template <typename T>
T field(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.contains(key)) return fallback;
  const auto& v = j[key];
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean() ? v.get<bool>() : fallback;
  } else {
    return v.is_number_integer() ? v.get<T>() : fallback;
  }
}

int64_t integer(const nlohmann::json& row, size_t i) {
  return i < row.size() && row[i].is_number_integer() ? row[i].get<int64_t>() : 0;
}

// Waves listed as {se: {simd: {slot: {id: [name, begin, end]}}}}; their files give instruction counts.
void read_waves(trace::ThreadTrace& out, const nlohmann::json& listing) {
  if (!listing.is_object()) return;
  int64_t begin = INT64_MAX, end = INT64_MIN;
  for (const auto& [se, simds] : listing.items()) {
    for (const auto& [simd, slots] : simds.items()) {
      for (const auto& [slot, waves] : slots.items()) {
        for (const auto& [id, wave] : waves.items()) {
          if (!wave.is_array() || wave.size() < 3 || !wave[0].is_string()) continue;
          ++out.waves;
          begin = std::min(begin, integer(wave, 1));
          end = std::max(end, integer(wave, 2));
          const fs::path file = out.dir / wave[0].get<std::string>();
          std::error_code ec;
          if (!fs::is_regular_file(file, ec)) continue;
          const auto w = parse(file);
          out.wave_instructions += field<int64_t>(w, "num_insts", 0);
        }
      }
    }
  }
  if (out.waves > 0 && end > begin) out.wave_cycles = end - begin;
}

}  // namespace

trace::ThreadTrace read_att_output(const fs::path& dir) {
  trace::ThreadTrace out;
  out.dir = dir;
  const fs::path code_file = dir / "code.json";
  std::error_code ec;
  if (!fs::is_regular_file(code_file, ec)) {
    fail(Errc::bad_input, "{}: no code.json; give a decoded thread-trace folder (ui_output_agent_*_dispatch_*)", dir.string());
  }
  const auto code = parse(code_file);
  auto normal = fs::absolute(dir).lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // "…/dispatch_3/"
  const std::string folder = normal.filename().string();
  if (const auto at = folder.rfind("_dispatch_"); at != std::string::npos) {
    int64_t id = 0;
    const char* begin = folder.c_str() + at + 10;
    const char* end = folder.c_str() + folder.size();
    if (auto [p, ec] = std::from_chars(begin, end, id); ec == std::errc() && p == end) out.dispatch_id = id;
  }
  if (!code.contains("code") || !code["code"].is_array()) fail(Errc::bad_input, "{}: no \"code\" array", code_file.string());
  for (const auto& row : code["code"]) {
    if (!row.is_array() || row.size() < 10 || !row[0].is_string()) {
      fail(Errc::bad_input, "{}: a code row is not [ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle, ...]",
           code_file.string());
    }
    const std::string isa = row[0].get<std::string>();
    if (isa.rfind(";", 0) == 0) {  // a kernel's marker row: "; _Z6kernelPf", its demangled name in the Source column
      if (out.kernel_mangled.empty()) {
        out.kernel_mangled = isa.substr(isa.find_first_not_of("; "));
        if (row[3].is_string()) out.kernel_name = row[3].get<std::string>();
      }
      continue;
    }
    trace::TracedInstruction ins;
    ins.isa = isa;
    ins.line = integer(row, 2);
    ins.source = row[3].is_string() ? row[3].get<std::string>() : "";
    ins.vaddr = static_cast<uint64_t>(integer(row, 5));
    ins.hits = integer(row, 6);
    ins.latency = integer(row, 7);
    ins.stall = integer(row, 8);
    ins.idle = integer(row, 9);
    ins.pc_issued = integer(row, 10);
    ins.pc_stalled = integer(row, 11);
    out.code.push_back(std::move(ins));
  }
  const fs::path names = dir / "filenames.json";
  if (fs::is_regular_file(names, ec)) {
    const auto f = parse(names);
    out.gfxip = field<int>(f, "gfxip", 0);
    out.pc_sampling = field<bool>(f, "pc_sampling", false);
    out.thread_trace = field<bool>(f, "thread_trace", !out.pc_sampling);
    if (f.contains("wave_filenames")) read_waves(out, f["wave_filenames"]);
  } else {
    out.thread_trace = true;
  }
  return out;
}

}  // namespace rpl::backends
