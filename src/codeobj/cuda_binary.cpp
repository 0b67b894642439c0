#include <rpl/codeobj/cuda_binary.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <cstring>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

#include "cuda_elf.hpp"
#include "elf_image.hpp"

namespace rpl::codeobj {
namespace fs = std::filesystem;

namespace {

void sort_kernels(std::vector<CudaKernelInfo>& kernels) {
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return std::tie(a.arch, a.name) < std::tie(b.arch, b.name); });
}

}  // namespace

bool is_cuda_binary(std::string_view content) {
  if (content.size() >= 4) {
    uint32_t magic;
    std::memcpy(&magic, content.data(), 4);
    if (magic == detail::kFatbinMagic) return true;
  }
  if (content.size() < 20 || !detail::is_elf(content)) return false;
  uint16_t machine;
  std::memcpy(&machine, content.data() + 18, 2);
  if (machine == detail::kEmCuda) return true;
  // A host binary: look for the section cudart registers its fatbin from.
  try {
    return detail::ElfImage(content, "").find(".nv_fatbin") != nullptr;
  } catch (const Error&) {
    return false;
  }
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
  sort_kernels(kernels);
  return kernels;
}

std::vector<std::string> cuda_arches(std::string_view content, const std::string& origin) {
  std::set<std::string> arches;
  for (const auto& entry : detail::find_cubins(content, origin)) {
    arches.insert(entry.arch.empty() ? detail::cubin_arch(detail::load_cubin(entry)) : entry.arch);
  }
  return {arches.begin(), arches.end()};
}

std::vector<CudaKernelInfo> read_cuda_kernels(const fs::path& file) {
  const MappedFile mapped(file);
  return read_cuda_kernels(mapped.bytes(), file.string());
}

std::vector<CudaKernelInfo> read_cuda_kernels(std::string_view content, const std::string& origin,
                                              const CudaKernelFilter& filter, unsigned threads) {
  const auto entries = detail::find_cubins(content, origin);
  if (entries.empty()) fail(Errc::bad_input, "{}: no kernels with machine code (PTX only?)", origin);
  // Each entry's kernels, or the error reading it; workers take entries in turn.
  std::vector<std::vector<CudaKernelInfo>> found(entries.size());
  std::vector<std::exception_ptr> errors(entries.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < entries.size();) {
      try {
        if (filter.arch && !entries[i].arch.empty() && !filter.arch(entries[i].arch)) continue;
        found[i] = detail::read_cubin_kernels(detail::load_cubin(entries[i]), filter.kernel);
        if (filter.done_with) filter.done_with(entries[i].payload);
        if (filter.arch) {
          std::erase_if(found[i], [&](const CudaKernelInfo& k) { return !filter.arch(k.arch); });
        }
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, entries.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  // The first broken entry in file order, whichever thread met it: the same input, the same error.
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  std::vector<CudaKernelInfo> kernels;
  for (auto& some : found) kernels.insert(kernels.end(), std::make_move_iterator(some.begin()), std::make_move_iterator(some.end()));
  sort_kernels(kernels);
  return kernels;
}

}  // namespace rpl::codeobj
