// rocm-perf occupancy --arch A --block N [--vgpr/--agpr/--sgpr/--lds | --regs/--smem/...] [--json]
#include <iostream>

#include <rpl/core/error.hpp>
#include <rpl/hal/arch.hpp>
#include <rpl/hal/occupancy.hpp>
#include <rpl/report/json_documents.hpp>
#include <rpl/report/text.hpp>

#include "commands.hpp"

namespace rpl::cli {
namespace {

struct OccupancyOptions {
  OutputOptions output;
  std::string arch;
  int block = 0;
  // AMD
  int vgpr = 0, agpr = 0, sgpr = 0, wave_size = 0;
  int64_t lds = 0;
  // NVIDIA
  int regs = 0, carveout = -1, barriers = 1;
  int64_t smem = 0, dyn_smem = 0, max_dyn_smem = -1;
};

// An option of the other vendor is a mistake worth naming, not something to ignore.
void reject_options(CLI::App& cmd, std::initializer_list<const char*> names, const std::string& arch, const char* use) {
  for (const char* name : names) {
    if (cmd.count(name) > 0) fail(Errc::bad_input, "{} does not apply to {}; use {}", name, arch, use);
  }
}

}  // namespace

Action add_occupancy_command(CLI::App& app) {
  auto o = std::make_shared<OccupancyOptions>();
  auto* cmd = app.add_subcommand("occupancy", "theoretical occupancy calculator (AMD and NVIDIA)");
  add_output_options(*cmd, o->output, false);
  cmd->add_option("--arch", o->arch, "architecture: " + hal::known_arch_names())->required();
  cmd->add_option("--block", o->block, "work-items (threads) per workgroup (block)")->required();
  auto* amd = "AMD";
  cmd->add_option("--vgpr", o->vgpr, "arch VGPRs per work-item")->group(amd)->check(CLI::NonNegativeNumber);
  cmd->add_option("--agpr", o->agpr, "AGPRs per work-item (gfx908/gfx90a/gfx94x)")->group(amd)->check(CLI::NonNegativeNumber);
  cmd->add_option("--sgpr", o->sgpr, "SGPRs per wave")->group(amd)->check(CLI::NonNegativeNumber);
  cmd->add_option("--lds", o->lds, "LDS bytes per workgroup (static + dynamic)")->group(amd)->check(CLI::NonNegativeNumber);
  cmd->add_option("--wave-size", o->wave_size, "32 or 64 (default: the architecture's)")->group(amd)->check(CLI::IsMember({32, 64}));
  auto* nv = "NVIDIA";
  cmd->add_option("--regs", o->regs, "registers per thread")->group(nv)->check(CLI::NonNegativeNumber);
  cmd->add_option("--smem", o->smem, "static shared memory bytes per block")->group(nv)->check(CLI::NonNegativeNumber);
  cmd->add_option("--dyn-smem", o->dyn_smem, "dynamic shared memory bytes per block")->group(nv)->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-dyn-smem", o->max_dyn_smem, "the kernel's MaxDynamicSharedMemorySize attribute")
      ->group(nv)->check(CLI::NonNegativeNumber);
  cmd->add_option("--carveout", o->carveout, "shared-memory carveout preference, percent")->group(nv)->check(CLI::Range(0, 100));
  cmd->add_option("--barriers", o->barriers, "barriers per block (Hopper)")->group(nv)->check(CLI::Range(0, 16));
  return [o, cmd]() -> int {
    hal::OccupancyResult result;
    if (const auto* arch = hal::find_amd_arch(o->arch)) {
      reject_options(*cmd, {"--regs", "--smem", "--dyn-smem", "--max-dyn-smem", "--carveout", "--barriers"}, o->arch,
                     "--vgpr, --agpr, --sgpr, --lds");
      hal::AmdKernelResources k{o->vgpr, o->agpr, o->sgpr, o->lds, o->wave_size};
      hal::check_allocatable(*arch, k);
      result = hal::amd_occupancy(*arch, k, o->block);
    } else if (const auto* arch = hal::find_nvidia_arch(o->arch)) {
      reject_options(*cmd, {"--vgpr", "--agpr", "--sgpr", "--lds", "--wave-size"}, o->arch, "--regs, --smem, --dyn-smem");
      hal::NvidiaKernelResources k;
      k.regs_per_thread = o->regs;
      k.static_smem = o->smem;
      k.dynamic_smem = o->dyn_smem;
      if (o->max_dyn_smem >= 0) k.max_dynamic_smem = o->max_dyn_smem;
      k.carveout_percent = o->carveout;
      k.barriers = o->barriers;
      hal::check_allocatable(*arch, k);
      result = hal::nvidia_occupancy(*arch, k, o->block);
    } else {
      hal::fail_unknown_arch(o->arch);
    }
    if (o->output.json) {
      report::Json doc = report::document_header();
      doc["arch"] = result.arch;
      doc["block"] = result.block;
      doc.update(report::occupancy_json(result));
      std::cout << report::dump(doc);
    } else {
      std::cout << fmt::format("{:<12}{} (block {})\n{:<12}{}\n", "Arch", result.arch, result.block, "Occupancy",
                               report::occupancy_text(result));
    }
    return 0;
  };
}

}  // namespace rpl::cli
