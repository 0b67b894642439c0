#include "sgemm_tiled.hpp"

void add_sgemm_configs_bm32(std::vector<SgemmConfig>& c) { RPL_SGEMM_WIDTHS(32) }
