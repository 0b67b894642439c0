#pragma once
// A Slurm allocation that measurements and builds run in as job steps (autotune --launcher slurm).
// Everything goes through Slurm's own commands (salloc, srun, squeue, scontrol, scancel), never
// its daemons. Each step runs its program under `rocm-perf slurm-step`, which writes what the
// program did into a status file on shared storage: a step that ends without one was ended by
// Slurm (node failure, preemption, time limit, scancel), not by its program.
#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <rpl/core/subprocess.hpp>

namespace rpl::backends {

struct SlurmOptions {
  std::vector<std::string> allocation_args;  // the user's salloc options (--partition=gpu --time=00:30:00 ...)
  int workers = 1;                           // steps at once: the allocation's tasks
  int gpus_per_step = 1;                     // 0 for programs that need none
  std::filesystem::path step_program;        // this rocm-perf, as the nodes see it
};

/// What `rocm-perf slurm-step` saw its program do (written when it starts, then when it ends).
struct StepStatus {
  std::string node;
  bool finished = false;
  ProcessResult process;   // exit, signal, timeout and wall time of the program alone
  std::string error;       // the program could not be started (not found, not executable)
};
void write_step_status(const std::filesystem::path& file, const StepStatus& status);
/// None when the file is missing or unreadable (the step never got that far).
std::optional<StepStatus> read_step_status(const std::filesystem::path& file);

/// One node's answer to the probe step.
struct NodeProbe {
  std::string node;
  bool sees_folder = false;
  std::string gpu;  // the name of its first GPU, empty when it has none we can name
};

class SlurmAllocation {
 public:
  /// Error(missing_tool) naming the Slurm command that is not installed here.
  explicit SlurmAllocation(SlurmOptions options);
  /// Asks for the allocation and waits until it is granted. Error(run_failed) with the scheduler's
  /// message when it is refused, or when *stop became true while it was pending (the pending job is
  /// then cancelled).
  void allocate(const std::atomic<bool>* stop);
  /// Cancels the allocation (and with it every step still running).
  ~SlurmAllocation();
  SlurmAllocation(const SlurmAllocation&) = delete;
  SlurmAllocation& operator=(const SlurmAllocation&) = delete;

  const std::string& job_id() const { return job_id_; }
  const std::vector<std::string>& nodes() const { return nodes_; }
  const SlurmOptions& options() const { return options_; }

  /// Runs one probe step on every node: each must see `folder` (shared storage) and run this
  /// rocm-perf. Error(bad_input) naming the node that does not see it; Error(missing_tool) when the
  /// steps cannot run the step program.
  std::vector<NodeProbe> probe_nodes(const std::filesystem::path& folder, const std::atomic<bool>* stop);

  /// The words before a program that make it a step run through `slurm-step` (srun ... -- rocm-perf
  /// slurm-step ... --): its status into status_file, killed by the step itself past timeout_seconds;
  /// on one node outside `exclude`, with the step's GPUs when with_gpus.
  std::vector<std::string> step_prefix(const std::filesystem::path& status_file, std::optional<double> timeout_seconds,
                                       bool with_gpus, const std::vector<std::string>& exclude) const;

  /// Whether the allocation still runs (false once its time limit or a scancel ended it).
  bool running() const;
  /// Cancels the allocation now (idempotent).
  void cancel();

  /// Steps started, and those ended by Slurm rather than by their program.
  std::atomic<size_t> steps{0};
  std::atomic<size_t> steps_lost{0};

 private:
  SlurmOptions options_;
  std::string name_;
  std::string job_id_;
  std::vector<std::string> nodes_;
  bool asked_ = false;
  bool cancelled_ = false;
};

/// The first line of a step's output that says why Slurm ended it ("*** STEP 12.3 ON node1
/// CANCELLED AT ..."), else its last line; empty for an empty log.
std::string step_end_clue(const std::filesystem::path& log);

}  // namespace rpl::backends
