#pragma once
// The pieces of ncu's CSV output that the counter pass and the source view both read.
#include <filesystem>
#include <string>

#include <rpl/trace/ncu_csv_text.hpp>

namespace rpl::backends::detail {

using trace::ncu::csv_fields;
using trace::ncu::csv_number;

/// Fails with missing_tool when ncu's output (kept in log) says the driver keeps the performance
/// counters from this user (ERR_NVGPUCTRPERM); `pass` names the pass in the message.
void fail_if_counters_forbidden(const std::string& pass, const std::string& output, const std::filesystem::path& log);

}  // namespace rpl::backends::detail
