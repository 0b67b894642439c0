#pragma once
// Reads Nsight Compute's CSV, its details or raw page (`ncu --csv [--page raw]`, or
// `ncu --import R --csv`), into the trace model.
#include <filesystem>
#include <istream>
#include <string_view>

#include <rpl/trace/model.hpp>

namespace rpl::trace {

/// ncu's thread instructions (predicated on) by SASS opcode with its modifiers: an instanced metric
/// of its full set, whose instances (with --print-metric-instances details) the reader keeps as
/// counters named METRIC[OPCODE], "...[HFMA2.MMA]".
inline constexpr std::string_view kNcuOpcodeMetric = "sass__thread_inst_executed_true_per_opcode_with_modifier_all";

/// Adds the file as one Source: a dispatch per kernel launch that ncu profiled and timed (the
/// GPU Speed Of Light section's Duration, or the gpu__time_duration.sum metric), laid end to end in
/// the order profiled, as ncu replays each launch alone; its grid and block, registers and shared
/// memory (Launch Statistics); the GPU from the CC column where the file has one; every raw
/// metric (a name with "__") as a counter. Error(bad_input) for a file with no header of ncu's, or
/// no launch with a duration, naming what to profile.
void read_ncu_csv_into(Trace& trace, const std::filesystem::path& file);

/// The same, of CSV text read from csv: an Nsight Compute report's (.ncu-rep) raw page as ncu
/// exported it, the Source and every message naming the report. With details, the report's
/// details page too, for ncu's rule rows of the same launches (the raw page has no rules); a
/// details page that cannot be read is a warning, not an error. With opcodes, a raw page of the
/// same launches whose metrics the raw page lacks (their instances: the instructions by opcode).
void read_ncu_csv_into(Trace& trace, std::istream& csv, const std::filesystem::path& file, std::istream* details = nullptr,
                       std::istream* opcodes = nullptr);

}  // namespace rpl::trace
