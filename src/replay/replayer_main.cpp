#include "replayer_main.hpp"

#include <algorithm>
#include <cstdio>

#include <rpl/codeobj/amd_code_object.hpp>
#include <rpl/codeobj/cuda_binary.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/isolate/region_store.hpp>

namespace rpl::replay {
using ordered_json = nlohmann::ordered_json;

namespace {

Options parse(int argc, char** argv, const char* name) {
  Options o;
  if (argc < 2) fail(Errc::bad_input, "usage: {} reserve-check|full-vm --capture-dir D --result FILE [options]", name);
  o.mode = argv[1];
  if (o.mode != "reserve-check" && o.mode != "full-vm") fail(Errc::bad_input, "unknown mode '{}'", o.mode);
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(Errc::bad_input, "{} needs a value", a);
      return argv[++i];
    };
    if (a == "--capture-dir") o.capture_dir = value();
    else if (a == "--result") o.result = value();
    else if (a == "--dump-outputs") o.dump_dir = value();
    else if (a == "--iterations") o.iterations = std::stoull(value());
    else if (a == "--no-recopy") o.recopy = false;
    else fail(Errc::bad_input, "unknown option '{}'", a);
  }
  if (o.capture_dir.empty() || o.result.empty()) fail(Errc::bad_input, "--capture-dir and --result are required");
  if (o.iterations == 0) fail(Errc::bad_input, "--iterations must be at least 1");
  return o;
}

}  // namespace

void dump_memory_or_fail(const std::filesystem::path& dir, std::vector<isolate::MemoryRegion> regions,
                         const std::function<void(uint64_t address, uint64_t n, char* into)>& read, std::span<char> staging) {
  try {
    isolate::dump_memory(dir, regions, read, staging, 1.0);
  } catch (const Error&) {
    throw;
  } catch (const std::runtime_error& e) {  // the disk is too small, or a file cannot be written
    fail(Errc::run_failed, "--dump-outputs {}: {}", dir.string(), e.what());
  }
}

isolate::Snapshot read_checked_snapshot(const std::filesystem::path& dir) {
  isolate::Snapshot snap = isolate::read_snapshot(dir);
  const auto file = snap.dir / snap.dispatch.code_object;
  const std::string image = read_file(file);
  std::vector<std::string> kernels;
  if (snap.dispatch.vendor == "nvidia") {
    kernels = codeobj::read_cubin_symbols(image, file.string()).kernels;
  } else {
    for (const auto& k : codeobj::parse_hsaco(image, file.string()).kernels) kernels.push_back(k.name);
  }
  if (std::find(kernels.begin(), kernels.end(), snap.dispatch.mangled_name) == kernels.end()) {
    fail(Errc::bad_input, "{}: the code object has no kernel {}", file.string(), snap.dispatch.mangled_name);
  }
  return snap;
}

ordered_json document_start(const Options& o, const std::string& kernel_name, const std::string& mangled_name) {
  ordered_json doc;
  doc["schema_version"] = "1.0";
  doc["mode"] = o.mode == "reserve-check" ? "reserve-check" : (o.recopy ? "stateless" : "stateful");
  doc["capture_dir"] = o.capture_dir.string();
  doc["kernel"] = {{"name", kernel_name}, {"mangled_name", mangled_name}};
  return doc;
}

void add_timing(ordered_json& doc, const Options& o, const std::vector<double>& gpu_ms, double wall_ms) {
  std::vector<double> sorted = gpu_ms;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  double sum = 0;
  for (double v : sorted) sum += v;
  doc["iterations"] = o.iterations;
  doc["gpu_time_ms"] = {{"average", sum / static_cast<double>(n)},
                        {"median", n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2},
                        {"min", sorted.front()},
                        {"max", sorted.back()}};
  doc["wall_time_ms"] = wall_ms;
  doc["dump_dir"] = o.dump_dir.empty() ? ordered_json() : ordered_json(o.dump_dir.string());
}

int replayer_main(int argc, char** argv, const char* name, const std::function<ordered_json(const Options&)>& replay) {
  std::filesystem::path result;
  try {
    const Options o = parse(argc, argv, name);
    result = o.result;
    const auto doc = replay(o);
    int code = 0;
    if (o.mode == "reserve-check") code = doc["status"] == "failed" ? 1 : doc["status"] == "relocated" ? 2 : 0;
    write_output_file(result, doc.dump(2) + "\n");
    return code;
  } catch (const std::exception& e) {
    const auto* err = dynamic_cast<const Error*>(&e);
    const int code = err ? exit_code(err->code()) : exit_code(Errc::internal);
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    if (!result.empty()) {
      try {
        ordered_json doc{{"error", e.what()}, {"exit", code}};
        if (dynamic_cast<const AddressesTaken*>(&e)) doc["addresses_taken"] = true;
        write_output_file(result, doc.dump(2) + "\n");
      } catch (...) {
      }
    }
    return code;
  }
}

}  // namespace rpl::replay
