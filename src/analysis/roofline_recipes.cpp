// Counter formulas per architecture.
//   NVIDIA (reference/cuda.md §4.1, ncu's roofline sections): FP32 = fadd + fmul + 2 ffma thread
//   instructions (likewise FP64); FP16 = 2 hadd + 2 hmul + 4 hfma (packed pairs), less 4 for each
//   thread of ptxas's HFMA2.MMA register moves, which ncu counts as hfma; tensor work from
//   sm__ops_path_tensor_src_* (operations, counted as FLOPs, as ncu's tensor roofline does; on an
//   H100 each GEMM's is 2 n^3, fp16 to fp8, and its int8 operations too, which are no FLOPs); DRAM
//   = bytes read + written; L2 = lts__t_bytes; L1 = l1tex__t_bytes. ncu's full set has the thread
//   instructions only as rates per cycle elapsed (its roofline multiplies them by the SM sub-
//   partitions' cycles elapsed), the L2's bytes only as 32-byte sectors, and FP8 tensor operations
//   only split by sparsity: those are the second forms.
//   AMD CDNA (reference/rocm.md §5, rocprof-compute's roofline_calc): VALU counts are wave
//   instructions (x64 lanes, FMA x2); MFMA_MOPS are 512-operation units; HBM bytes from the TCC
//   EA requests with the MI300 formula (gfx94x) or the MI200 one (gfx90a); LDS, vL1D and L2 bytes.
#include <set>
#include <utility>

#include <fmt/format.h>

#include <rpl/analysis/roofline.hpp>
#include <rpl/hal/arch.hpp>
#include <rpl/trace/ncu_reader.hpp>

#include "nvidia_metric_names.hpp"

namespace rpl::analysis {
namespace {

using hal::ComputeKind;
using hal::MemoryLevel;

template <typename E>
size_t at(E e) {
  return static_cast<size_t>(e);
}

CounterRecipe nvidia_recipe() {
  CounterRecipe r;
  const std::array<std::pair<ComputeKind, std::array<const char*, 3>>, 3> vector_kinds = {
      {{ComputeKind::fp32, {"fadd", "fmul", "ffma"}},
       {ComputeKind::fp64, {"dadd", "dmul", "dfma"}},
       {ComputeKind::fp16, {"hadd", "hmul", "hfma"}}}};
  for (const auto& [kind, ops] : vector_kinds) {
    const double lanes = kind == ComputeKind::fp16 ? 2 : 1;  // packed half2
    const std::array<double, 3> flops = {lanes, lanes, 2 * lanes};
    for (size_t op = 0; op < ops.size(); ++op) {
      const std::string instructions = fmt::format("sass_thread_inst_executed_op_{}_pred_on.sum", ops[op]);
      r.flops[at(kind)].push_back({"sm__" + instructions, flops[op]});
      r.flops_otherwise[at(kind)].push_back({"smsp__" + instructions + ".per_cycle_elapsed", flops[op], "smsp__cycles_elapsed.avg"});
    }
  }
  // The moves' warp instructions on the tensor pipe, 32 threads each (a partial warp's are fewer:
  // 62 threads of 34 million in a PyTorch kernel on an H100), else their thread instructions by
  // opcode (ncu's full set): 4 FLOPs each, as an HFMA2's.
  r.flops_not_arithmetic[at(ComputeKind::fp16)] = {{nvidia_metric::kTensorMoves, 4.0 * 32}};
  r.flops_not_arithmetic_otherwise[at(ComputeKind::fp16)] = {
      {std::string(trace::kNcuOpcodeMetric) + "[HFMA2.MMA]", 4}};
  r.flops[at(ComputeKind::matrix_fp16)] = {{"sm__ops_path_tensor_src_fp16.sum", 1},
                                           {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1}};
  r.flops[at(ComputeKind::matrix_tf32)] = {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum", 1}};
  r.flops[at(ComputeKind::matrix_fp64)] = {{"sm__ops_path_tensor_src_fp64.sum", 1}};
  r.flops[at(ComputeKind::matrix_fp8)] = {{"sm__ops_path_tensor_src_fp8.sum", 1}};
  r.flops_otherwise[at(ComputeKind::matrix_fp8)] = {{"sm__ops_path_tensor_src_fp8_sparsity_off.sum", 1},
                                                    {"sm__ops_path_tensor_src_fp8_sparsity_on.sum", 1}};
  r.matrix_integer_ops = {{"sm__ops_path_tensor_src_int8.sum", 1}, {"sm__ops_path_tensor_src_int1.sum", 1}};
  r.bytes[at(MemoryLevel::dram)] = {{"dram__bytes_read.sum", 1}, {"dram__bytes_write.sum", 1}};
  r.bytes_otherwise[at(MemoryLevel::dram)] = {{"dram__bytes.sum", 1}};  // ncu's read and write together
  r.bytes[at(MemoryLevel::l2)] = {{"lts__t_bytes.sum", 1}};
  r.bytes_otherwise[at(MemoryLevel::l2)] = {{"lts__t_sectors.sum", 32}};
  r.bytes[at(MemoryLevel::l1)] = {{"l1tex__t_bytes.sum", 1}};
  r.matrix_instructions = nvidia_metric::kTensorInstructions;
  r.matrix_instructions_not_arithmetic = nvidia_metric::kTensorMoves;
  r.compute_clock = {nvidia_metric::kSmClock, nvidia_metric::kGpcClock};
  r.why_missing = "shared memory bytes are not part of the NVIDIA counter set";
  return r;
}

CounterRecipe cdna_recipe(bool mi300) {
  CounterRecipe r;
  const std::array<std::pair<ComputeKind, std::string>, 3> vector_kinds = {
      {{ComputeKind::fp16, "F16"}, {ComputeKind::fp32, "F32"}, {ComputeKind::fp64, "F64"}}};
  for (const auto& [kind, type] : vector_kinds) {
    r.flops[at(kind)] = {{"SQ_INSTS_VALU_ADD_" + type, 64},
                         {"SQ_INSTS_VALU_MUL_" + type, 64},
                         {"SQ_INSTS_VALU_FMA_" + type, 128},
                         {"SQ_INSTS_VALU_TRANS_" + type, 64}};
  }
  r.flops[at(ComputeKind::matrix_fp16)] = {{"SQ_INSTS_VALU_MFMA_MOPS_F16", 512}, {"SQ_INSTS_VALU_MFMA_MOPS_BF16", 512}};
  r.flops[at(ComputeKind::matrix_fp32)] = {{"SQ_INSTS_VALU_MFMA_MOPS_F32", 512}};
  r.flops[at(ComputeKind::matrix_fp64)] = {{"SQ_INSTS_VALU_MFMA_MOPS_F64", 512}};
  if (mi300) r.flops[at(ComputeKind::matrix_fp8)] = {{"SQ_INSTS_VALU_MFMA_MOPS_F8", 512}};
  r.bytes[at(MemoryLevel::lds)] = {{"SQ_LDS_IDX_ACTIVE", 128}, {"SQ_LDS_BANK_CONFLICT", -128}};
  r.bytes[at(MemoryLevel::l1)] = {{"TCP_TOTAL_CACHE_ACCESSES_sum", 64}};
  r.bytes[at(MemoryLevel::l2)] = {{"TCP_TCC_READ_REQ_sum", 64},
                                  {"TCP_TCC_WRITE_REQ_sum", 64},
                                  {"TCP_TCC_ATOMIC_WITH_RET_REQ_sum", 64},
                                  {"TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", 64}};
  if (mi300) {
    // 128 BUBBLE + 32 RD32B + 64 (RD - BUBBLE - RD32B) + 32 (WR - WR64B) + 64 WR64B, collected.
    r.bytes[at(MemoryLevel::dram)] = {{"TCC_BUBBLE_sum", 64},
                                      {"TCC_EA0_RDREQ_32B_sum", -32},
                                      {"TCC_EA0_RDREQ_sum", 64},
                                      {"TCC_EA0_WRREQ_sum", 32},
                                      {"TCC_EA0_WRREQ_64B_sum", 32}};
  } else {
    // 32 RD32B + 64 (RD - RD32B) + 64 WR64B + 32 (WR - WR64B), collected.
    r.bytes[at(MemoryLevel::dram)] = {{"TCC_EA_RDREQ_32B_sum", -32},
                                      {"TCC_EA_RDREQ_sum", 64},
                                      {"TCC_EA_WRREQ_64B_sum", 32},
                                      {"TCC_EA_WRREQ_sum", 32}};
  }
  r.why_missing = mi300 ? "TF32 matrix work is not counted apart" : "gfx90a has no FP8 or TF32 matrix counters";
  return r;
}

}  // namespace

std::optional<CounterRecipe> counter_recipe(std::string_view architecture) {
  const std::string arch = hal::normalize_arch_name(architecture);
  if (hal::find_nvidia_arch(arch)) return nvidia_recipe();
  if (arch == "gfx940" || arch == "gfx941" || arch == "gfx942" || arch == "gfx950") return cdna_recipe(true);
  if (arch == "gfx90a") return cdna_recipe(false);
  return std::nullopt;
}

std::vector<std::vector<std::string>> counter_passes(std::string_view architecture) {
  const std::string arch = hal::normalize_arch_name(architecture);
  if (hal::find_nvidia_arch(arch)) return {};
  const auto recipe = counter_recipe(arch);
  if (!recipe) return {};
  auto ends = [](const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  auto starts = [](const std::string& s, std::string_view head) { return s.rfind(head, 0) == 0; };
  std::vector<std::vector<std::string>> passes(4);
  for (const auto& c : recipe_counters(*recipe)) {
    const bool mfma = starts(c, "SQ_INSTS_VALU_MFMA_MOPS_");
    if (mfma && ends(c, "_F8")) {
      passes[3].push_back(c);
    } else if (!mfma && starts(c, "SQ_INSTS_VALU_") && (ends(c, "_F16") || ends(c, "_F32"))) {
      passes[0].push_back(c);
    } else if (starts(c, "SQ_INSTS_VALU_") || starts(c, "TCC_") || c == "TCP_TCC_READ_REQ_sum") {
      passes[1].push_back(c);
    } else {
      passes[2].push_back(c);  // LDS, vL1D accesses, L2 writes and atomics
    }
  }
  std::erase_if(passes, [](const auto& p) { return p.empty(); });
  return passes;
}

std::vector<std::string> missing_nvidia_counter_warnings(const std::vector<std::string>& missing) {
  // Without the moves' count nothing is taken off: the FP16 figure and the mix keep them as FP16.
  std::string moves, others;
  for (const auto& m : missing) {
    auto& list = m == nvidia_metric::kTensorMoves ? moves : others;
    list += (list.empty() ? "" : ", ") + m;
  }
  std::vector<std::string> out;
  if (!others.empty()) out.push_back(fmt::format("counter pass: this GPU's ncu has no metric {}; the figures that need it stay null", others));
  if (!moves.empty()) {
    out.push_back(fmt::format("counter pass: this GPU's ncu has no metric {}; FP16 FLOPs and the instruction mix's fp16 share "
                              "then count ptxas's HFMA2.MMA register moves as FP16 arithmetic", moves));
  }
  return out;
}

std::vector<std::string> recipe_counters(const CounterRecipe& recipe) {
  std::set<std::string> names;
  for (const auto& terms : recipe.flops) {
    for (const auto& t : terms) names.insert(t.counter);
  }
  for (const auto& terms : recipe.bytes) {
    for (const auto& t : terms) names.insert(t.counter);
  }
  for (const auto& terms : recipe.flops_not_arithmetic) {
    for (const auto& t : terms) names.insert(t.counter);
  }
  for (const auto& t : recipe.matrix_integer_ops) names.insert(t.counter);
  return {names.begin(), names.end()};
}

}  // namespace rpl::analysis
