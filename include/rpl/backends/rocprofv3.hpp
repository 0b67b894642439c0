#pragma once
// The ROCm backend: runs rocprofv3 once per run and keeps the rocpd databases it writes.
#include <filesystem>
#include <optional>
#include <vector>

#include <rpl/backends/run_options.hpp>
#include <rpl/trace/rocpd_counters.hpp>

namespace rpl::backends {

/// rocprofv3 from PATH, else /opt/rocm/bin.
std::optional<std::filesystem::path> find_rocprofv3();

/// The argv of one traced run at a trace level (RunOptions::trace_level; exposed for tests and --debug).
std::vector<std::string> rocprofv3_trace_argv(const std::filesystem::path& rocprofv3,
                                              const std::filesystem::path& output_dir,
                                              const std::vector<std::string>& command, const std::string& level);

/// Runs the program options.runs times under rocprofv3 --kernel-trace --memory-copy-trace
/// (--hip-runtime-trace at level default, and --marker-trace at full) and moves each run's
/// *_results.db into trace_dir (replacing what a previous profile left there), named run<N>_*.db.
/// Errors: missing_tool (no rocprofv3), run_failed (a run failed, hung or wrote no database).
std::vector<std::filesystem::path> trace_with_rocprofv3(const RunOptions& options, const std::filesystem::path& trace_dir);

/// The argv of one counter pass.
std::vector<std::string> rocprofv3_counter_argv(const std::filesystem::path& rocprofv3, const std::filesystem::path& output_dir,
                                                const std::vector<std::string>& counters,
                                                const std::vector<std::string>& command);

/// Runs the program once per pass under rocprofv3 --pmc (a pass: counters the hardware collects
/// together) and returns every value, launches numbered per kernel in start order, ready for
/// trace::store_counters. Errors: missing_tool (no rocprofv3), run_failed (a pass failed or
/// recorded no counter), naming the pass's log.
std::vector<trace::CounterSample> collect_rocprofv3_counters(const RunOptions& options,
                                                             const std::vector<std::vector<std::string>>& passes);

/// The argv of one thread-trace pass.
std::vector<std::string> rocprofv3_att_argv(const std::filesystem::path& rocprofv3, const std::filesystem::path& output_dir,
                                            const std::string& kernel_regex, int target_cu,
                                            const std::vector<std::string>& command);

/// Runs the program once under rocprofv3 --att for the kernels matching kernel_regex on compute unit
/// target_cu, and moves the first decoded dispatch folder (one with a code.json) to destination.
/// Errors: missing_tool (no rocprofv3), run_failed (the pass failed, or decoded nothing: the decoder
/// library missing, or no matching dispatch), naming its log.
std::filesystem::path collect_thread_trace(const RunOptions& options, const std::string& kernel_regex, int target_cu,
                                           const std::filesystem::path& destination);

}  // namespace rpl::backends
