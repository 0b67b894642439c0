#include <rpl/optimize/builder.hpp>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include <fmt/format.h>

#include <rpl/codeobj/device_images.hpp>
#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/output_file.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::optimize {
namespace fs = std::filesystem;
namespace {

constexpr size_t kLogTail = 64 << 10;

std::string tail_of(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return "";
  std::string text = read_file(file);
  return text.size() > kLogTail ? text.substr(text.size() - kLogTail) : text;
}

// The files a build with {SOURCE_DIR} finds beside the variant: the sources and headers of the
// original's folder (not of its subfolders), by name.
std::vector<std::string> source_files_in(const fs::path& dir) {
  static const std::set<std::string> kSourceExtensions = {".cu", ".cuh", ".hip", ".h",  ".hh", ".hpp", ".hxx",
                                                          ".inc", ".inl", ".c",   ".cc", ".cpp", ".cxx"};
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && kSourceExtensions.count(entry.path().extension().string())) {
      out.push_back(entry.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

VariantBuilder::VariantBuilder(const std::string& build_template, fs::path original_source, double timeout_seconds)
    : template_(build_template, "--build"), original_(std::move(original_source)), timeout_seconds_(timeout_seconds) {
  const auto names = template_.placeholders();
  const auto has = [&](const char* name) { return std::binary_search(names.begin(), names.end(), name); };
  if (!has("SOURCE") && !has("SOURCE_DIR")) {
    fail(Errc::bad_input, "--build '{}' has no {{SOURCE}} (or {{SOURCE_DIR}}): the optimizer builds each variant with it", build_template);
  }
  if (!has("BINARY")) fail(Errc::bad_input, "--build '{}' has no {{BINARY}}: the optimizer builds each variant with it", build_template);
  for (const auto& n : names) {
    if (n != "BINARY" && n != "SOURCE" && n != "SOURCE_DIR") {
      fail(Errc::bad_input, "--build: unknown placeholder {{{}}} (only {{SOURCE}}, {{SOURCE_DIR}} and {{BINARY}})", n);
    }
  }
  if (has("SOURCE_DIR")) folder_files_ = source_files_in(original_.parent_path());
}

BuiltVariant VariantBuilder::build(const std::string& text, const fs::path& dir) const {
  BuiltVariant out;
  create_output_folder(dir);
  out.source = dir / original_.filename();
  out.binary = dir / "variant";
  const fs::path folder = original_.parent_path();
  write_output_file(out.source, anchor_relative_includes(text, folder, folder_files_));
  for (const auto& name : folder_files_) {
    if (name != original_.filename()) write_output_file(dir / name, anchor_relative_includes(read_file(folder / name), folder, folder_files_));
  }
  std::error_code ec;
  fs::remove(out.binary, ec);
  ProcessOptions p;
  p.argv = template_.instantiate([&](const std::string& name) {
    return name == "SOURCE" ? out.source.string() : name == "SOURCE_DIR" ? dir.string() : out.binary.string();
  });
  p.output_file = dir / "build.log";
  p.working_directory = original_.parent_path();
  if (timeout_seconds_ > 0) p.timeout = std::chrono::duration<double>(timeout_seconds_);
  const auto r = run_process(p);
  out.seconds = r.wall_seconds;
  out.log = tail_of(dir / "build.log");
  if (!r.ok()) {
    out.failure = "the build " + r.describe(timeout_seconds_);
  } else if (!fs::is_regular_file(out.binary, ec)) {
    out.failure = "the build made no " + out.binary.string();
  } else {
    out.ok = true;
  }
  return out;
}

std::vector<BuiltVariant> VariantBuilder::build_all(const std::vector<std::pair<std::string, fs::path>>& variants,
                                                    unsigned jobs) const {
  std::vector<BuiltVariant> out(variants.size());
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  std::vector<std::exception_ptr> errors(variants.size());
  for (unsigned w = 0; w < std::min<size_t>(jobs, variants.size()); ++w) {
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < variants.size();) {
        try {
          out[i] = build(variants[i].first, variants[i].second);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
  }
  for (auto& t : workers) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return out;
}

std::string anchor_relative_includes(const std::string& text, const fs::path& original_dir, const std::vector<std::string>& copied) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    const size_t eol = std::min(text.find('\n', at), text.size());
    std::string line = text.substr(at, eol - at);
    // #  include  "x"
    size_t i = line.find_first_not_of(" \t");
    if (i != std::string::npos && line[i] == '#') {
      i = line.find_first_not_of(" \t", i + 1);
      if (i != std::string::npos && line.compare(i, 7, "include") == 0) {
        const size_t open = line.find('"', i + 7), close = open == std::string::npos ? open : line.find('"', open + 1);
        if (close != std::string::npos) {
          const fs::path named = line.substr(open + 1, close - open - 1);
          std::error_code ec;
          const bool beside = named.parent_path().empty() && std::binary_search(copied.begin(), copied.end(), named.string());
          if (named.is_relative() && !beside && fs::is_regular_file(original_dir / named, ec)) {
            const std::string absolute = fs::absolute(original_dir / named).lexically_normal().string();
            line = line.substr(0, open + 1) + absolute + line.substr(close);
          }
        }
      }
    }
    out += line;
    if (eol < text.size()) out += '\n';
    at = eol + 1;
  }
  return out;
}

bool same_machine_code(const fs::path& a, const fs::path& b, std::string& difference) {
  const MappedFile fa(a), fb(b);
  const auto ia = codeobj::device_images(fa.bytes(), a.string()), ib = codeobj::device_images(fb.bytes(), b.string());
  if (ia.empty() && ib.empty()) {
    if (fa.bytes() == fb.bytes()) return true;
    const auto m = std::mismatch(fa.bytes().begin(), fa.bytes().end(), fb.bytes().begin(), fb.bytes().end());
    difference = fmt::format("the binaries differ from byte {}", m.first - fa.bytes().begin());
    return false;
  }
  if (ia.size() != ib.size()) {
    difference = fmt::format("{} device images in one build, {} in the other", ia.size(), ib.size());
    return false;
  }
  for (size_t i = 0; i < ia.size(); ++i) {
    if (ia[i].arch != ib[i].arch || ia[i].bytes != ib[i].bytes) {
      const auto m = std::mismatch(ia[i].bytes.begin(), ia[i].bytes.end(), ib[i].bytes.begin(), ib[i].bytes.end());
      difference = fmt::format("device image {} ({}) differs from byte {}", i + 1, ia[i].arch, m.first - ia[i].bytes.begin());
      return false;
    }
  }
  return true;
}

std::vector<std::string> time_dependent_macros(const std::string& text) {
  std::vector<std::string> out;
  for (const char* macro : {"__TIME__", "__DATE__", "__TIMESTAMP__"}) {
    const size_t at = text.find(macro);
    if (at == std::string::npos) continue;
    out.push_back(fmt::format("{} (line {})", macro, std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1));
  }
  return out;
}

std::optional<std::string> kernel_code_object(const fs::path& binary, const std::string& arch, const std::string& mangled_name) {
  const MappedFile file(binary);
  for (auto& image : codeobj::device_images(file.bytes(), binary.string())) {
    const bool same_arch = image.arch == arch || (image.arch.rfind(arch, 0) == 0 && (image.arch[arch.size()] == 'a' ||
                                                                                     image.arch[arch.size()] == ':'));
    // A symbol name is stored with its terminating NUL.
    if (same_arch && image.bytes.find(mangled_name + '\0') != std::string::npos) return std::move(image.bytes);
  }
  return std::nullopt;
}

}  // namespace rpl::optimize
