#pragma once
// The one place the commands recognise the traces they are given (analyze, export, report
// --trace): what a path stands for is found from what it is, not from its name. Readers of other
// formats are added here.
#include <filesystem>
#include <vector>

#include <rpl/trace/model.hpp>
#include <rpl/trace/trace_reader.hpp>

namespace rpl::workflow {

/// The trace files the inputs stand for, in order: a folder that rocm-perf profile wrote stands for
/// its runs (.rocpd_profile/run*.db); any other folder for the traces found in it (rocpd databases,
/// rocprofv3 kernel_trace.csv files, legacy rocprof results.csv, PyTorch profiler traces, Nsight Compute reports; a few levels deep, as rocprofv3
/// writes <host>/<pid>_...); a file for itself, its format found by trace::read_traces from its
/// content. Error(bad_input) for a folder that holds no trace.
std::vector<std::filesystem::path> trace_files(const std::vector<std::filesystem::path>& inputs);

/// The files read as one trace, Nsight Compute's reports through ncu (backends::ncu_report_pages).
trace::Trace read_trace_files(const std::vector<std::filesystem::path>& files, trace::ReadOptions options = {});

/// The inputs' trace files read as one trace.
trace::Trace read_trace_inputs(const std::vector<std::filesystem::path>& inputs, const trace::ReadOptions& options = {});

/// Gives arch ("sm_80", "gfx942") to the trace's GPUs whose architecture it does not record (an ncu
/// CSV without a CC column, a rocprofv3 CSV without agent_info.csv), with a warning that says so;
/// a GPU the trace does record keeps its own, with a warning where it differs. Error(bad_input)
/// for an architecture the tables do not know, or of the other vendor than a GPU it would name.
void assume_architecture(trace::Trace& trace, std::string_view arch);

}  // namespace rpl::workflow
