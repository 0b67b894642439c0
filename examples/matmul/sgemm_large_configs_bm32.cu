#include "sgemm_tiled.hpp"

void add_sgemm_large_configs_bm32(std::vector<SgemmConfig>& c) { RPL_SGEMM_WIDTHS_LARGE(32) }
