#include <rpl/workflow/autotune_slurm.hpp>

#include <sstream>

#include <rpl/core/error.hpp>
#include <rpl/core/files.hpp>

namespace rpl::workflow {
namespace fs = std::filesystem;

void check_slurm_launch(const SlurmLaunchOptions& o, bool devices, bool replay) {
  if (!o.slurm()) return;
  if (devices) fail(Errc::bad_input, "--devices picks this machine's GPUs; with --launcher slurm, Slurm gives each step its GPUs");
  if (replay) fail(Errc::bad_input, "--replay measures nothing: it does not go with --launcher slurm");
}

std::shared_ptr<backends::SlurmAllocation> prepare_slurm(const SlurmLaunchOptions& o) {
  backends::SlurmOptions s;
  std::istringstream words(o.slurm_args);
  for (std::string w; words >> w;) s.allocation_args.push_back(w);
  s.workers = o.workers;
  s.gpus_per_step = o.gpus_per_step;
  std::error_code ec;
  s.step_program = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail(Errc::internal, "the path of this rocm-perf is unknown: {}", ec.message());
  return std::make_shared<backends::SlurmAllocation>(std::move(s));
}

std::optional<std::string> start_slurm(backends::SlurmAllocation& slurm, const std::string& shared_dir,
                                       const std::atomic<bool>* stop) {
  slurm.allocate(stop);
  std::optional<std::string> gpu;
  std::string gpu_node;
  for (const auto& node : slurm.probe_nodes(shared_dir, stop)) {
    if (node.gpu.empty()) continue;
    if (gpu && *gpu != node.gpu) {
      fail(Errc::bad_input, "the allocation mixes GPUs: {} has a {} but {} a {}; tune on one kind at a time (--slurm-args "
                            "\"--constraint=...\")",
           gpu_node, *gpu, node.node, node.gpu);
    }
    gpu = node.gpu;
    gpu_node = node.node;
  }
  return gpu;
}

report::SlurmSetup slurm_setup(const SlurmLaunchOptions& o, const backends::SlurmAllocation& slurm, const std::string& shared_dir) {
  report::SlurmSetup s;
  s.job_id = slurm.job_id();
  s.nodes = slurm.nodes();
  s.workers = o.workers;
  s.gpus_per_step = o.gpus_per_step;
  s.shared_dir = fs::absolute(shared_dir).string();
  s.builds = o.build_where;
  s.retries = o.retries;
  s.steps = slurm.steps.load();
  s.steps_lost = slurm.steps_lost.load();
  return s;
}

}  // namespace rpl::workflow
