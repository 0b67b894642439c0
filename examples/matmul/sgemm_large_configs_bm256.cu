#include "sgemm_tiled.hpp"

void add_sgemm_large_configs_bm256(std::vector<SgemmConfig>& c) { RPL_SGEMM_WIDTHS_LARGE(256) }
