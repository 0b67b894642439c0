#pragma once
// A trace written as AMD's profilers write it before rocpd, for the readers' tests and benchmarks: the layouts are
// those of real files (../shared/reference/formats.md), so that reading them back must give what the
// rocpd reader gives for the same trace.
#include <filesystem>
#include <string>

#include <rpl/trace/model.hpp>

namespace rpl::tools {

/// rocprofv3 --output-format csv, ROCm 7 layouts: <prefix>kernel_trace.csv (22 columns, Agent_Id
/// "Agent <Logical_Node_Id>"), <prefix>agent_info.csv (53 columns; Node_Id differs from
/// Logical_Node_Id, as on an MI250X), <prefix>memory_copy_trace.csv. Every string field quoted.
void write_rocprofv3_csv(const trace::Trace& trace, const std::filesystem::path& folder, const std::string& prefix);

/// rocprofv3 --output-format json: {"rocprofiler-sdk-tool": [{metadata, agents, kernel_symbols,
/// buffer_records: {kernel_dispatch, memory_copy}, strings}]}, as rocprofiler-sdk serializes them.
void write_rocprofv3_json(const trace::Trace& trace, const std::filesystem::path& file, int64_t pid);

/// Legacy rocprof --stats --timestamp on: results.csv (22 columns; grid and workgroup as totals of
/// work-items) and results.sysinfo.txt (rocminfo's output, an agent per HSA node).
void write_rocprof_v1(const trace::Trace& trace, const std::filesystem::path& folder);

}  // namespace rpl::tools
