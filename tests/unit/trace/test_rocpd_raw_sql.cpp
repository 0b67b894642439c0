// The reader against a database made by raw SQL typed from the reference schema, not by our writer.
#include <gtest/gtest.h>

#include <rpl/trace/rocpd_reader.hpp>

#include "test_support.hpp"

namespace rpl::trace {
namespace {

std::filesystem::path raw_database() { return test::database_from_sql("rocpd_v3_raw.sql", test::fresh_dir("raw")); }

TEST(RocpdRawSql, ReadsTheReferenceSchema) {
  Trace t = read_rocpd({raw_database()});
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0].guids,
            (std::vector<std::string>{"0000ddb5-8903-7903-b269-cd8d3745bb8a", "11111111-2222-7333-8444-555555555555"}));
  EXPECT_EQ(t.agents.size(), 3u);
  EXPECT_EQ(t.symbols.size(), 3u);
  EXPECT_EQ(t.dispatches.size(), 5u);
  EXPECT_TRUE(t.warnings.empty());
  ASSERT_EQ(t.memory_copies.size(), 1u);
  EXPECT_EQ(t.memory_copies[0].name, "MEMORY_COPY_HOST_TO_DEVICE");
}

TEST(RocpdRawSql, RegistersComeFromKernelSymbolsNotTheKernelsView) {
  // The ROCm 7.0 `kernels` view in this file has no VGPR columns; the symbol table has them.
  Trace t = read_rocpd({raw_database()});
  for (const auto& d : t.dispatches) {
    const auto& s = t.symbols[d.symbol];
    if (s.mangled_name != "_Z10gemm_tiledPKfS0_Pfi") continue;
    EXPECT_EQ(s.arch_vgpr_count, 96);
    EXPECT_EQ(s.accum_vgpr_count, 32);
    EXPECT_EQ(s.sgpr_count, 112);
    EXPECT_EQ(s.group_segment_size, 8192);
    EXPECT_EQ(t.geometry(d).group_segment_size, 12288u);
  }
}

TEST(RocpdRawSql, DispatchesResolveWithinTheirOwnGuid) {
  Trace t = read_rocpd({raw_database()});
  for (const auto& d : t.dispatches) {
    const auto& s = t.symbols[d.symbol];
    ASSERT_GE(d.agent, 0);
    const auto& a = t.agents[d.agent];
    EXPECT_EQ(s.guid, a.guid) << "dispatch " << d.id;
    EXPECT_EQ(a.type, "GPU");
    EXPECT_EQ(a.compute_units, 304);
  }
}

}  // namespace
}  // namespace rpl::trace
