#pragma once
// Reads a PyTorch profiler trace (Kineto's Chrome trace JSON, torch.profiler's
// export_chrome_trace) into the trace model.
#include <filesystem>

#include <rpl/trace/model.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::trace {

/// Adds the file as one Source: the GPUs of deviceProperties, every kernel event (grid, block,
/// registers per thread, shared memory, stream, correlation), memcpy and memset events as copies,
/// cudaDeviceSynchronize as a host wait; with options.host_calls, the runtime and driver calls.
/// Error(bad_input) naming the file where it is not such a trace.
void read_kineto_into(Trace& trace, const std::filesystem::path& file, const ReadOptions& options = {});

}  // namespace rpl::trace
