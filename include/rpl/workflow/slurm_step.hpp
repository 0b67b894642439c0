#pragma once
// What autotune --launcher slurm runs inside each job step (`rocm-perf slurm-step`, hidden): the
// program, its outcome written into a status file; and a probe of what a node sees. The status
// file tells the controller apart a program that failed from a step that Slurm ended: only a step
// whose program ran to its end (or past its timeout) leaves a finished status.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rpl::workflow {

/// Runs program (argv) on this node, its outcome into status_file (backends::StepStatus; written
/// unfinished first). Returns the step's exit status: the program's, 124 past timeout (seconds,
/// 0: none), 128 + a signal, or 127 when it cannot run (error says why).
int run_slurm_step(const std::filesystem::path& status_file, double timeout, const std::vector<std::string>& program,
                   std::string* error = nullptr);

struct NodeProbe {
  std::string node;                // $SLURMD_NODENAME, else the host name
  bool sees = false;               // whether file holds token here
  std::optional<std::string> gpu;  // the first NVIDIA GPU's name, where there is one
};

/// Whether this node sees file holding token (a shared file system), and its GPU.
NodeProbe probe_node(const std::filesystem::path& file, const std::string& token);

}  // namespace rpl::workflow
