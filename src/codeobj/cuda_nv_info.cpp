// Kernel resources from a cubin's ELF, as cuobjdump --dump-resource-usage reports them (checked
// on an H100 against cuobjdump 13.0 for 246 kernels, and against cudaFuncGetAttributes):
//   registers  EIATTR_REGCOUNT (0x2f) in .nv.info, keyed by the kernel's symbol index; where a cubin
//              has none (cuBLASLt's sm_75 kernels), the top byte of .text.<kernel>'s sh_info, where
//              ptxas also records it (checked against cuobjdump on libcublasLt.so.13)
//   stack      EIATTR_MIN_STACK_SIZE (0x12): the per-thread stack, spills and local arrays included
//              (cuobjdump's STACK; what the runtime counts as local memory, with `local`)
//   local      size of .nv.local.<kernel>, per thread (cuobjdump's LOCAL)
//   shared     size of .nv.shared.<kernel>: static shared memory. From sm_90 on, ptxas puts the
//              1 KiB per block reserved for the system (marked by a .nv.shared.reserved.0 section)
//              inside it; cuobjdump counts it, the runtime and CUPTI do not, and occupancy adds it
//              separately, so it is left out here.
//   constant   size of .nv.constant0.<kernel> (parameters and driver constants)
// .nv.info is a list of attributes on a 4-byte grid: u8 format, u8 attribute, u16 value or size;
// format 4 (EIFMT_SVAL) is followed by `size` bytes. Kernels are the symbols marked as entries.
// An arch-specific target (sm_90a) is told from the plain one by the fatbin entry's flags, or in
// a bare cubin by attribute 9 of .nv.compat (same layout) being 1: e_flags are the same for both.
#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include <rpl/core/error.hpp>

#include "cuda_elf.hpp"
#include "elf_image.hpp"

namespace rpl::codeobj::detail {
namespace {

constexpr uint8_t kStoCudaEntry = 0x10;
constexpr uint8_t kFormatSval = 4;
constexpr uint8_t kAttrMinStackSize = 0x12, kAttrRegcount = 0x2f;
constexpr uint8_t kCompatArchSpecific = 0x09;
constexpr int64_t kReservedSharedBytes = 1024;  // hal's reserved_smem_per_block on sm_80+

// "sm_90" from e_flags: the SM number sits in bits 8-15 since ELF ABI version 8 (CUDA 12), in bits
// 0-7 before.
std::string arch_of(const GElf_Ehdr& header) {
  const uint32_t flags = static_cast<uint32_t>(header.e_flags);
  const uint32_t sm = header.e_ident[EI_ABIVERSION] >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
  return "sm_" + std::to_string(sm);
}

struct Symbol {
  std::string name;
  bool entry = false;
  bool variable = false;  // a module-scope __device__ or __constant__ variable
};

std::vector<Symbol> read_symbols(const ElfImage& elf) {
  std::vector<Symbol> symbols;
  std::map<size_t, const std::string*> section_names;  // by ELF section index
  for (const auto& s : elf.sections()) section_names[s.index] = &s.name;
  for (const auto& section : elf.sections()) {
    if (section.header.sh_type != SHT_SYMTAB) continue;
    std::string_view names;
    for (const auto& s : elf.sections()) {
      if (s.index == section.header.sh_link) names = s.data;
    }
    for (size_t at = 0; at + sizeof(Elf64_Sym) <= section.data.size(); at += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, section.data.data() + at, sizeof sym);
      Symbol s;
      if (sym.st_name < names.size()) {
        const std::string_view rest = names.substr(sym.st_name);
        s.name = std::string(rest.substr(0, rest.find('\0')));
      }
      s.entry = ELF64_ST_TYPE(sym.st_info) == STT_FUNC && (sym.st_other & kStoCudaEntry) != 0;
      if (auto in_section = section_names.find(sym.st_shndx);
          ELF64_ST_TYPE(sym.st_info) == STT_OBJECT && in_section != section_names.end()) {
        const std::string& in = *in_section->second;
        // Bank 0 of .nv.constant holds the parameters, not a variable.
        s.variable = in.starts_with(".nv.global") || (in.starts_with(".nv.constant") && !in.starts_with(".nv.constant0"));
      }
      symbols.push_back(std::move(s));
    }
  }
  return symbols;
}

// (attribute, symbol index) -> value, from the module-wide .nv.info.
std::map<std::pair<uint8_t, uint32_t>, uint32_t> read_module_attributes(const ElfImage& elf) {
  std::map<std::pair<uint8_t, uint32_t>, uint32_t> values;
  const ElfSection* info = elf.find(".nv.info");
  if (!info) return values;
  const std::string_view b = info->data;
  for (size_t at = 0; at + 4 <= b.size();) {
    const uint8_t format = static_cast<uint8_t>(b[at]), attribute = static_cast<uint8_t>(b[at + 1]);
    uint16_t size;
    std::memcpy(&size, b.data() + at + 2, 2);
    at += 4;
    if (format != kFormatSval) continue;
    if (size > b.size() - at) fail(Errc::bad_input, "{}: .nv.info attribute runs past the section", elf.origin());
    if (size == 8) {
      uint32_t symbol, value;
      std::memcpy(&symbol, b.data() + at, 4);
      std::memcpy(&value, b.data() + at + 4, 4);
      values[{attribute, symbol}] = value;
    }
    at += size;
  }
  return values;
}

// Whether .nv.compat marks the cubin as built for an arch-specific ("a") target.
bool compat_arch_specific(const ElfImage& elf) {
  const ElfSection* compat = elf.find(".nv.compat");
  if (!compat) return false;
  const std::string_view b = compat->data;
  for (size_t at = 0; at + 4 <= b.size();) {
    const uint8_t format = static_cast<uint8_t>(b[at]), attribute = static_cast<uint8_t>(b[at + 1]);
    uint16_t size;
    std::memcpy(&size, b.data() + at + 2, 2);
    if (attribute == kCompatArchSpecific && format != kFormatSval) return b[at + 2] == 1;
    at += 4;
    if (format == kFormatSval) at += size;
  }
  return false;
}

// "sm_90", with the entry's "a"/"f", or "a" where .nv.compat says so.
std::string arch_label(const ElfImage& elf, const Cubin& cubin) {
  const std::string base = arch_of(elf.header());
  if (!cubin.entry_arch.empty() && cubin.entry_arch.rfind(base, 0) == 0 && cubin.entry_arch.size() == base.size() + 1) {
    return cubin.entry_arch;
  }
  return compat_arch_specific(elf) ? base + "a" : base;
}

}  // namespace

std::string cubin_arch(const Cubin& cubin) { return arch_label(ElfImage(cubin.image, cubin.origin), cubin); }

std::vector<CudaKernelInfo> read_cubin_kernels(const Cubin& cubin, const std::function<bool(const std::string&)>& wanted) {
  const ElfImage elf(cubin.image, cubin.origin);
  if (elf.header().e_machine != kEmCuda) {
    fail(Errc::bad_input, "{}: ELF image is not CUDA device code (e_machine {})", cubin.origin, elf.header().e_machine);
  }
  if (elf.header().e_ident[EI_CLASS] != ELFCLASS64) fail(Errc::bad_input, "{}: 32-bit CUDA ELF images are not supported", cubin.origin);
  if (elf.sections().empty()) fail(Errc::bad_input, "{}: CUDA ELF image with no sections (truncated?)", cubin.origin);
  const std::string arch = arch_label(elf, cubin);
  const auto symbols = read_symbols(elf);
  const auto attributes = read_module_attributes(elf);
  auto attribute = [&](uint8_t a, size_t symbol) -> int64_t {
    auto it = attributes.find({a, static_cast<uint32_t>(symbol)});
    return it == attributes.end() ? 0 : it->second;
  };
  auto section_size = [&](const std::string& name) -> int64_t {
    const ElfSection* s = elf.find(name);
    return s ? static_cast<int64_t>(s->header.sh_size) : 0;
  };
  const bool reserved_inside_shared = elf.find(".nv.shared.reserved.0") != nullptr;
  std::vector<CudaKernelInfo> kernels;
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (!symbols[i].entry || symbols[i].name.empty() || (wanted && !wanted(symbols[i].name))) continue;
    CudaKernelInfo k;
    k.name = symbols[i].name;
    k.arch = arch;
    k.registers = attribute(kAttrRegcount, i);
    if (k.registers == 0) {
      if (const ElfSection* text = elf.find(".text." + k.name)) k.registers = static_cast<int64_t>(text->header.sh_info >> 24);
    }
    k.stack_bytes = attribute(kAttrMinStackSize, i);
    k.local_bytes = section_size(".nv.local." + k.name);
    k.shared_bytes = section_size(".nv.shared." + k.name);
    if (reserved_inside_shared && k.shared_bytes >= kReservedSharedBytes) k.shared_bytes -= kReservedSharedBytes;
    k.constant_bytes = section_size(".nv.constant0." + k.name);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace rpl::codeobj::detail

namespace rpl::codeobj {

CubinSymbols read_cubin_symbols(std::string_view image, const std::string& origin) {
  const detail::ElfImage elf(image, origin);
  if (elf.header().e_machine != detail::kEmCuda) fail(Errc::bad_input, "{}: not a cubin (ELF machine {})", origin, elf.header().e_machine);
  CubinSymbols out;
  for (auto& s : detail::read_symbols(elf)) {
    if (s.name.empty()) continue;
    if (s.entry) out.kernels.push_back(std::move(s.name));
    else if (s.variable) out.variables.push_back(std::move(s.name));
  }
  std::sort(out.kernels.begin(), out.kernels.end());
  std::sort(out.variables.begin(), out.variables.end());
  out.variables.erase(std::unique(out.variables.begin(), out.variables.end()), out.variables.end());
  return out;
}

}  // namespace rpl::codeobj
