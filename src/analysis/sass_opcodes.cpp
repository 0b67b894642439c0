// The opcodes of the instruction-set tables of NVIDIA's CUDA Binary Utilities (§4, Turing to
// Blackwell), grouped as ncu's own categories group them: on the H100 files of
// tests/fixtures/ncu_full_instances_*, our floating-point kinds, integer, load_store and branch
// sum exactly to ncu's Floating Point (with the HFMA2.MMA moves), Integer, Load/Store plus Tensor
// Memory Access, and Control. We split floating point by precision and put the matrix
// instructions in a kind of their own; the rest (uniform datapath, movement, conversion,
// predicate, barriers, warpgroup fences) is other.
#include "sass_opcodes.hpp"

#include <algorithm>
#include <array>
#include <span>

namespace rpl::analysis {
namespace {

// Base opcodes (before the first '.') by category.
constexpr std::string_view kFp32[] = {"FADD", "FADD2", "FADD32I", "FCHK", "FFMA", "FFMA2", "FFMA32I", "FMNMX", "FMNMX3",
    "FMUL", "FMUL2", "FMUL32I", "FSEL", "FSET", "FSETP", "FSWZADD", "MUFU"};
constexpr std::string_view kFp64[] = {"DADD", "DFMA", "DMNMX", "DMUL", "DSET", "DSETP"};
constexpr std::string_view kFp16[] = {"HADD2", "HADD2_32I", "HFMA2", "HFMA2_32I", "HMNMX2", "HMUL2", "HMUL2_32I",
    "HSET2", "HSETP2", "VHMNMX"};
constexpr std::string_view kInteger[] = {"BMSK", "BREV", "FLO", "IABS", "IADD", "IADD3", "IADD32I", "IDP", "IDP4A",
    "IMAD", "IMNMX", "IMUL", "IMUL32I", "ISCADD", "ISCADD32I", "ISETP", "LEA", "LOP", "LOP3", "LOP32I", "POPC", "SHF",
    "SHL", "SHR", "VABSDIFF", "VABSDIFF4", "VIADD", "VIADDMNMX", "VIMNMX", "VIMNMX3"};
constexpr std::string_view kLoadStore[] = {"ATOM", "ATOMG", "ATOMS", "CCTL", "CCTLL", "ERRBAR", "FENCE", "LD", "LDC",
    "LDG", "LDGDEPBAR", "LDGSTS", "LDL", "LDS", "LDSM", "MATCH", "MEMBAR", "QSPC", "RED", "REDG", "ST", "STAS", "STG",
    "STL", "STS", "STSM", "SULD", "SUST", "SUATOM", "SURED", "SYNCS", "TEX", "TLD", "TLD4", "TXQ"};
constexpr std::string_view kBranch[] = {"BMOV", "BPT", "BRA", "BREAK", "BRX", "BRXU", "BSSY", "BSYNC", "CALL", "EXIT",
    "JMP", "JMX", "KILL", "NANOSLEEP", "PREEXIT", "RET", "RPCMOV", "WARPSYNC", "YIELD"};

struct Group {
  std::string_view category;
  std::span<const std::string_view> opcodes;
};
constexpr std::array<Group, 6> kGroups = {{
    {"fp32", kFp32},
    {"fp64", kFp64},
    {"fp16", kFp16},
    {"integer", kInteger},
    {"load_store", kLoadStore},
    {"branch", kBranch},
}};

}  // namespace

std::string_view sass_opcode_category(std::string_view opcode) {
  // ptxas moves registers with HFMA2.MMA on the tensor pipe: no arithmetic.
  if (opcode.starts_with("HFMA2.MMA")) return "other";
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  if (base.ends_with("MMA")) return "tensor";         // HMMA, IMMA, DMMA, HGMMA, QGMMA, ...
  if (base.starts_with("UTMA")) return "load_store";  // the tensor memory accelerator's copies
  for (const auto& g : kGroups) {
    if (std::find(g.opcodes.begin(), g.opcodes.end(), base) != g.opcodes.end()) return g.category;
  }
  return "other";
}

}  // namespace rpl::analysis
