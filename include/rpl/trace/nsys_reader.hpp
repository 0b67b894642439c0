#pragma once
// Reads an Nsight Systems export (`nsys export --type sqlite`) into the trace model.
#include <filesystem>

#include <rpl/trace/model.hpp>
#include <rpl/trace/rocpd_reader.hpp>

namespace rpl::trace {

/// Adds the export as one Source: the GPUs of TARGET_INFO_GPU, the CUDA kernels (grid, block,
/// registers, shared and local memory), copies and memsets, cudaEventRecord, stream waits and host
/// synchronizations (the dependency graph's edges), the streams' kinds; with options.host_calls, the
/// CUDA runtime calls. Each process of the export is one guid, its pid. Error(bad_input) naming the
/// file and table where a table lacks a column it needs.
void read_nsys_into(Trace& trace, const std::filesystem::path& file, const ReadOptions& options = {});

}  // namespace rpl::trace
