#!/usr/bin/env bash
# The bayes strategy started warm (rocm-perf autotune --warm-start) against cold, on the landscapes
# of bench/autotune_landscapes.sh: each landscape's run starts from a bayes run of the landscape of
# its space nearest in problem size (the least sum of |log| of the ratios of M, N and K; of the
# stencil's side and steps; of the Triton matmul's size; of the softmax's and the row reduction's
# rows and columns), at WARM percent of that space (default 15: what a user who tuned the
# neighbouring size at a small budget has), with another seed per run.
# Prints the cold table, then the warm one. No GPU needed.
#   usage: bench/autotune_warm_start.sh [BUILD_DIR] [WARM] [extra rpl-autotune-landscapes options...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
warm=${2:-15}
shift $(( $# < 2 ? $# : 2 ))
# TARGET=EARLIER, from the problem sizes of scripts/gpu/run_landscapes.sh.
pairs=(
  sgemm=sgemm_1920 sgemm_wide=sgemm_5k_flat sgemm_1k=sgemm_deep sgemm_tall=sgemm_tall_128
  sgemm_512=sgemm_640 sgemm_rect=sgemm_2816_1k sgemm_768=sgemm_896 sgemm_flat=sgemm
  sgemm_1536=sgemm_1664 sgemm_3k=sgemm_4k sgemm_kbig=sgemm_1k sgemm_skinny=sgemm_tall_192
  sgemm_1280=sgemm_1216 sgemm_640=sgemm_1k sgemm_4k=sgemm_3k sgemm_narrow=sgemm_tall_384
  sgemm_896=sgemm_960 sgemm_384=sgemm_448 sgemm_deep=sgemm_1k sgemm_tall_256=sgemm_tall_320
  sgemm_5k_flat=sgemm_6k_k512 sgemm_3k_cube=sgemm_2k_4k sgemm_1792=sgemm_1920
  sgemm_2560_512=sgemm_3k_512 sgemm_1k_4k=sgemm_512_4k sgemm_320=sgemm_448
  sgemm_8k_flat=sgemm_6k_k512 sgemm_1152=sgemm_1216 sgemm_448=sgemm_576
  sgemm_6k_k512=sgemm_5k_flat sgemm_tall_128=sgemm_tall_192 sgemm_2k_4k=sgemm
  sgemm_1664=sgemm_1792 sgemm_576=sgemm_704 sgemm_tall_384=sgemm_narrow sgemm_1408=sgemm_1536
  sgemm_704=sgemm_576 sgemm_3k_512=sgemm_2560_512 sgemm_960=sgemm_896 sgemm_512_4k=sgemm_1k_4k
  sgemm_2304=sgemm sgemm_1920=sgemm sgemm_256_4k=sgemm_320 sgemm_3584_768=sgemm_2816_1k
  sgemm_1088=sgemm_1152 sgemm_832_3k=sgemm_576 sgemm_2816_1k=sgemm_3584_768
  sgemm_tall_192=sgemm_skinny sgemm_1216=sgemm_1280 sgemm_1536_640=sgemm_3k_512
  sgemm_tall_320=sgemm_narrow stencil=stencil_7k stencil_small=stencil_1920
  stencil_mid=stencil_3584 stencil_3k=stencil_2560 stencil_1k=stencil_960 stencil_6k=stencil_5632
  stencil_1536=stencil_1792 stencil_5k=stencil_5632 stencil_2560=stencil_3k stencil_7k=stencil
  stencil_3584=stencil_mid stencil_1280=stencil_1408 stencil_4608=stencil_4352
  stencil_1792=stencil_1536 stencil_3328=stencil_3840 stencil_896=stencil_960
  stencil_2304=stencil_2176 stencil_1152=stencil_1088 stencil_640=stencil_768
  stencil_2816=stencil_3k stencil_768=stencil_896 stencil_1664=stencil_1792
  stencil_1408=stencil_1280 stencil_3840=stencil_3328 stencil_960=stencil_896
  stencil_1920=stencil_small stencil_4352=stencil_mid stencil_1088=stencil_1152
  stencil_2176=stencil_2304 stencil_5632=stencil_6k triton=triton_1536 triton_1k=triton_1280
  triton_4k=triton triton_1536=triton_1280 triton_1280=triton_1536 sgemm_large=sgemm_large_1536
  sgemm_large_1k=sgemm_large_1536 sgemm_large_wide=sgemm_large_mid
  sgemm_large_tall=sgemm_large_rect sgemm_large_rect=sgemm_large_mid sgemm_large_1536=sgemm_large
  sgemm_large_mid=sgemm_large_1536 triton_wall=triton_wall_2k triton_wall_2k=triton_wall
  # Added on 2026-11-29 with their landscapes, each from its nearest among the 96 above (whose pairs
  # were chosen before these two were measured: sgemm_2304's nearest is now sgemm_2560).
  sgemm_2560=sgemm_3k_cube sgemm_768_6k=sgemm_1k_4k
  # Added on 2026-11-30 with their landscapes, each from its nearest among those above.
  stencil_1600=stencil_1664 stencil_2432=stencil_2304
  # Added on 2026-12-01 with their landscapes, each from its nearest among those above.
  sgemm_1344=sgemm_1408 sgemm_2k_768=sgemm_1536_640 sgemm_tall_448=sgemm_narrow sgemm_5k_1k=sgemm_2816_1k
  stencil_1216=stencil_1152 stencil_1344=stencil_1408 stencil_2688=stencil_2816 stencil_2944=stencil_3k
  triton_2560=triton triton_3k=triton_4k
  # Added on 2026-12-02 with their landscapes, each from its nearest among those above; stencil_large,
  # alone in its space until then (and so cold in the warm table), from the nearest of them.
  stencil_large=stencil_large_4k stencil_large_2k=stencil_large_3k stencil_large_3k=stencil_large_4k stencil_large_4k=stencil_large_3k
  sgemm_large_768=sgemm_large_1k_cube sgemm_large_1k_cube=sgemm_large_768 sgemm_large_3k_768=sgemm_large
  # Added on 2026-12-02 (third session) with their landscapes, each from its nearest among those above.
  stencil_704=stencil_640 stencil_1472=stencil_1600 stencil_2112=stencil_small stencil_3200=stencil_3328
  sgemm_1472=sgemm_1536 sgemm_2k_1280=sgemm_2304 sgemm_3k_640=sgemm_3584_768 triton_1792=triton
  stencil_large_1536=stencil_large_2k stencil_large_2560=stencil_large_2k sgemm_large_1280=sgemm_large_1536
  sgemm_large_6k_512=sgemm_large_rect
  # Added on 2026-12-03 (twelfth session) with their landscapes, each from its nearest among those
  # above; the softmax's three, a space of their own, from the nearest of each other.
  stencil_832=stencil_896 stencil_1856=stencil_1792 stencil_2624=stencil_2688 stencil_3456=stencil_3584
  sgemm_1600=sgemm_1664 sgemm_2176=sgemm sgemm_3k_1536=sgemm_3k triton_2304=triton_2560
  softmax_long=softmax_odd softmax_short=softmax_odd softmax_odd=softmax_long
  # Added on 2026-12-04 (sixteenth session): the row reduction's four, a space of their own, from the
  # nearest of each other (ties to the first by name).
  rowsum_1k=rowsum_128 rowsum_64k=rowsum_8k rowsum_128=rowsum_1k rowsum_8k=rowsum_1k
)
priors=()
for p in "${pairs[@]}"; do priors+=(--prior "$p"); done
echo "cold:"
bash bench/autotune_landscapes.sh "$build" --strategies bayes "$@"
echo "warm, from a run at $warm % of the nearest size:"
bash bench/autotune_landscapes.sh "$build" --strategies bayes --warm-start "$warm" "${priors[@]}" "$@"
