#include <gtest/gtest.h>

#include <rpl/hal/arch.hpp>

namespace rpl::hal {
namespace {

TEST(Arch, NamesAreNormalized) {
  EXPECT_EQ(normalize_arch_name("gfx90a:sramecc+:xnack-"), "gfx90a");
  EXPECT_EQ(normalize_arch_name("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(normalize_arch_name("GFX1030"), "gfx1030");
  EXPECT_EQ(normalize_arch_name("sm_90a"), "sm_90");
  EXPECT_EQ(normalize_arch_name("sm_80"), "sm_80");
}

TEST(Arch, TablesKnowTheIssuesArchitectures) {
  for (const char* a : {"gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1151"}) EXPECT_EQ(vendor_of(a), Vendor::amd) << a;
  for (const char* a : {"sm_80", "sm_86", "sm_89", "sm_90"}) EXPECT_EQ(vendor_of(a), Vendor::nvidia) << a;
  EXPECT_FALSE(vendor_of("gfx1250").has_value());
  EXPECT_FALSE(vendor_of("").has_value());
  EXPECT_EQ(find_amd_arch("gfx942")->product.compute_units, 304);
  EXPECT_EQ(find_nvidia_arch("sm_90")->smem_per_sm, 228 * 1024);
}

}  // namespace
}  // namespace rpl::hal
