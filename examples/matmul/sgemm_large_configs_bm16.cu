#include "sgemm_tiled.hpp"

void add_sgemm_large_configs_bm16(std::vector<SgemmConfig>& c) { RPL_SGEMM_WIDTHS_LARGE(16) }
