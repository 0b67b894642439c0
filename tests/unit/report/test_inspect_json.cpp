// The streamed inspect document is byte for byte the document built whole.
#include <sstream>

#include <gtest/gtest.h>

#include <rpl/report/json_documents.hpp>

namespace rpl::report {
namespace {

analysis::InspectedKernel kernel(const std::string& name, int registers) {
  analysis::InspectedKernel k;
  k.name = name + "(float*)";
  k.mangled_name = "_Z" + std::to_string(name.size()) + name + "Pf";
  k.arch = "sm_90a";
  k.wave_size = 32;
  k.max_flat_workgroup_size = 1024;
  k.resources.vgpr_per_thread = registers;
  k.constant_bytes = 528;
  return k;
}

TEST(InspectJson, StreamedEqualsWhole) {
  analysis::InspectReport report;
  report.file = "lib \"quoted\"\n  \"kernels\": [].so";  // the split marker, escaped, in a string
  report.block = 256;
  for (int n : {0, 1, 3}) {
    report.kernels.clear();
    for (int i = 0; i < n; ++i) report.kernels.push_back(kernel("k" + std::to_string(i), 32 + i));
    report.warnings = n == 3 ? std::vector<std::string>{"a warning"} : std::vector<std::string>{};
    std::ostringstream streamed;
    write_inspect_json(streamed, report);
    EXPECT_EQ(streamed.str(), dump(inspect_json(report))) << n << " kernels";
  }
}

}  // namespace
}  // namespace rpl::report
