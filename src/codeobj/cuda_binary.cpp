#include <rpl/codeobj/cuda_binary.hpp>

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>
#include <rpl/core/subprocess.hpp>

namespace rpl::codeobj {
namespace fs = std::filesystem;

namespace {

constexpr uint16_t kEmCuda = 190;              // EM_CUDA
constexpr uint32_t kFatbinMagic = 0xBA55ED50;  // fatbin files and .nv_fatbin sections start with it

}  // namespace

bool is_cuda_binary(const fs::path& file) {
  std::string head(64, '\0');
  {
    std::ifstream in(file, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
  }
  if (head.size() >= 4) {
    uint32_t magic;
    std::memcpy(&magic, head.data(), 4);
    if (magic == kFatbinMagic) return true;
  }
  if (head.size() < 20 || head.compare(0, 4, "\x7f" "ELF") != 0) return false;
  uint16_t machine;
  std::memcpy(&machine, head.data() + 18, 2);
  if (machine == kEmCuda) return true;
  // A host binary: look for the section cudart registers its fatbin from.
  const std::string content = read_file(file);
  if (elf_version(EV_CURRENT) == EV_NONE) return false;
  Elf* elf = elf_memory(const_cast<char*>(content.data()), content.size());
  if (!elf) return false;
  bool found = false;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn && !found; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr shdr;
      if (!gelf_getshdr(scn, &shdr)) continue;
      const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
      found = name && std::strcmp(name, ".nv_fatbin") == 0;
    }
  }
  elf_end(elf);
  return found;
}

std::vector<CudaKernelInfo> parse_cuobjdump_resource_usage(const std::string& text) {
  static const std::regex arch_re(R"(^\s*arch = (sm_\w+))");
  static const std::regex function_re(R"(^\s*Function (\S+):\s*$)");
  static const std::regex field_re(R"(([A-Z]+(?:\[\d+\])?):(\d+))");
  std::vector<CudaKernelInfo> kernels;
  std::string arch, function;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, arch_re)) {
      arch = m[1];
    } else if (std::regex_search(line, m, function_re)) {
      function = m[1];
    } else if (!function.empty() && line.find("REG:") != std::string::npos) {
      CudaKernelInfo k;
      k.name = function;
      k.arch = arch;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), field_re); it != std::sregex_iterator(); ++it) {
        const std::string key = (*it)[1];
        const int64_t value = std::stoll((*it)[2]);
        if (key == "REG") k.registers = value;
        else if (key == "SHARED") k.shared_bytes = value;
        else if (key == "LOCAL") k.local_bytes = value;
        else if (key == "STACK") k.stack_bytes = value;
        else if (key == "CONSTANT[0]") k.constant_bytes = value;
      }
      kernels.push_back(std::move(k));
      function.clear();
    }
  }
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return std::tie(a.arch, a.name) < std::tie(b.arch, b.name); });
  return kernels;
}

std::vector<CudaKernelInfo> read_cuda_kernels(const fs::path& file) {
  const auto cuobjdump = find_executable("cuobjdump", {"/usr/local/cuda/bin"});
  if (!cuobjdump) {
    fail(Errc::missing_tool, "{}: CUDA binary, but cuobjdump is not in PATH or /usr/local/cuda/bin (install the CUDA "
                             "toolkit; reading .nv.info without it is not implemented yet)", file.string());
  }
  ProcessOptions p;
  p.argv = {cuobjdump->string(), "--dump-resource-usage", fs::absolute(file).string()};
  p.capture_output = true;
  p.timeout = std::chrono::duration<double>(120);
  ProcessResult r = run_process(p);
  if (!r.ok()) fail(Errc::bad_input, "{}: cuobjdump {}: {}", file.string(), r.describe(120), r.output.substr(0, 200));
  auto kernels = parse_cuobjdump_resource_usage(r.output);
  if (kernels.empty()) fail(Errc::bad_input, "{}: cuobjdump found no kernels with machine code (PTX only?)", file.string());
  return kernels;
}

}  // namespace rpl::codeobj
