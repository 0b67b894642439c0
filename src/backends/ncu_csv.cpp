#include "ncu_csv.hpp"

#include <rpl/core/error.hpp>

namespace rpl::backends::detail {

void fail_if_counters_forbidden(const std::string& pass, const std::string& output, const std::filesystem::path& log) {
  if (output.find("ERR_NVGPUCTRPERM") == std::string::npos) return;
  fail(Errc::missing_tool, "{}: ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or let users "
                           "profile (NVreg_RestrictProfilingToAdminUsers=0); its output: {}",
       pass, log.string());
}

}  // namespace rpl::backends::detail
