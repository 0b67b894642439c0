#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="stencil_tunable matmul_tunable" WITH_CLANG=1 bash scripts/gpu/prepare_carry.sh`: autotune
# landscapes measured exhaustively (every configuration, in a random order), each configuration's
# kernel time from the CUPTI trace with the spread of its launches (cv), for bench/data/ and the
# strategies' benchmark (bench/autotune_landscapes.sh):
# LANDSCAPES names those to measure (default "stencil sgemm_wide"; PACK=1 packs the output, below):
#   stencil: the launch geometry of examples/stencil/stencil_tunable (96 configurations, 8192², 10 steps);
#   sgemm_wide: the SGEMM of examples/matmul/matmul_tunable at another shape, M = N = 4096 and K = 256
#            (225 configurations, 10 launches);
#   sgemm_1k: the same SGEMM at M = N = 1024 and K = 4096, where the largest tiles leave most SMs idle
#            (64 blocks of 128², 132 SMs on an H100): an optimum inside the ranges, not at their ends;
#   triton:  the block sizes and warps of a Triton matmul (tests/gpu/programs/triton_matmul_tunable.py,
#            54 configurations, 2048³ in fp16, 10 launches; about 10 s a configuration, Triton compiling
#            in each process: run it alone);
#   sgemm_tall: the same SGEMM at M = 16384, N = 96, K = 2048: a tall, narrow product whose N fills no
#            64- or 128-wide tile (measured after the strategies were tuned, to check them on a
#            landscape they were not fitted to);
#   stencil_small: the stencil at 2048² and 50 steps, where a step is a few microseconds (same purpose).
#   sgemm_large: the SGEMM at 2048³ over matmul_tunable_large's 648 configurations (BM and BN of 16
#            to 256, BK of 8 to 64), where 5 % of the space is 33 configurations, not 12 (same purpose;
#            carry EXAMPLES="matmul_tunable_large stencil_tunable" and NO_TESTS=1, which fits the carry's
#            64 MiB with clang: this script needs no tests);
#   sgemm_large_1k, sgemm_large_wide: the same 648 configurations at 1024 x 1024 x 4096 and 4096 x 4096
#            x 256, measured after the bayes strategy's seed count was chosen on sgemm_large (to check it);
#   sgemm_large_tall, stencil_large: the 648 at 16384 x 96 x 2048, and the stencil at 8192² and 10
#            steps over 410 launch geometries (stencil_large_space.json: blocks of 1 to 1024 wide, 1 to
#            64 high, 1 to 32 rows), measured after the local search's anchors were chosen (to check them).
#   sgemm_512, sgemm_rect, stencil_mid: the 225 at 512 x 512 x 8192 (few blocks, a long K) and 8192 x
#            1024 x 1024, and the stencil's 96 at 4096² and 20 steps, measured after the strategy was
#            settled (2026-11-26), to check its small budgets on landscapes nothing was chosen on.
#   triton_1k: the Triton matmul at 1024³ (the same 54 configurations), measured after those (same purpose);
#   sgemm_large_rect, sgemm_768, sgemm_flat, stencil_3k, triton_4k: the 648 at 8192 x 1024 x 1024, the
#            225 at 768³ (36 blocks of 128²) and 2048 x 2048 x 512, the stencil at 3072² and 30 steps,
#            the Triton matmul at 4096³: measured on 2026-11-27 before the strategy's next change was
#            chosen, and not looked at until it was (to check it).
#   sgemm_1536, sgemm_3k, sgemm_kbig, sgemm_skinny, stencil_1k, stencil_6k: the 225 at 1536³, 3072 x
#            3072 x 1024, 1024 x 2048 x 8192 and 4096 x 256 x 4096, the stencil's 96 at 1024² and 100
#            steps and at 6144² and 10 steps: measured on 2026-11-27 after the inner seed pair was
#            chosen, to check it.
#   sgemm_1280, sgemm_640, sgemm_4k, sgemm_narrow, stencil_1536, stencil_5k, sgemm_large_1536: the 225
#            at 1280³, 640 x 1280 x 4096, 4096 x 4096 x 1024 and 6144 x 512 x 2048, the stencil's 96 at
#            1536² and 60 steps and at 5120² and 10 steps, the 648 at 1536³: measured on 2026-11-27
#            after local search's order (every anchor's single steps before any two-parameter step)
#            was chosen, to check it.
#   stencil_2560, stencil_7k, sgemm_896, sgemm_384, sgemm_3k_cube, sgemm_5k_flat, sgemm_tall_256,
#            sgemm_deep, sgemm_large_mid: the stencil's 96 at 2560² and 30 steps and at 7168² and 10
#            steps, the 225 at 896³, 384 x 2048 x 2048, 3072³, 5120 x 5120 x 512, 12288 x 256 x 1024
#            and 2048 x 1024 x 4096, the 648 at 2560 x 1536 x 1024: measured on 2026-11-27 (the
#            session's second half) before local search's next change was chosen, and not looked at
#            until it was (to check it).
#   sgemm_1792, sgemm_2560_512, sgemm_1k_4k, sgemm_8k_flat, sgemm_320, stencil_3584, stencil_1280: the
#            225 at 1792³, 2560 x 512 x 4096, 1024 x 4096 x 1024, 8192 x 8192 x 256 and 320 x 4096 x
#            2048, the stencil's 96 at 3584² and 20 steps and at 1280² and 80 steps: measured on
#            2026-11-27 and sealed (left out of bench/autotune_landscapes.sh) until they checked the next
#            change to the strategies, chosen on landscapes nothing was chosen on; since in the benchmark.
#   sgemm_1152, sgemm_448, sgemm_6k_k512, sgemm_tall_128, sgemm_2k_4k, stencil_4608, stencil_1792: the
#            225 at 1152³, 448 x 3072 x 2048, 6144 x 6144 x 512, 8192 x 128 x 4096 and 2048 x 4096 x 2048,
#            the stencil's 96 at 4608² and 15 steps and at 1792² and 60 steps: measured on 2026-11-27
#            (late) and sealed likewise, once the seven above had checked a change and moved up.
#   sgemm_1664, sgemm_576, sgemm_tall_384, stencil_3328, stencil_896: the 225 at 1664³, 576 x 2560 x
#            2048 and 4096 x 384 x 2048, the stencil's 96 at 3328² and 25 steps and at 896² and 120
#            steps: measured on 2026-11-27 (night) and sealed, once the seven above had checked the
#            restart at the centre and moved up.
#   sgemm_1408, sgemm_704, sgemm_3k_512, stencil_2304, stencil_1152, triton_1536: the 225 at 1408³,
#            704 x 2048 x 2048 and 3072 x 512 x 3072, the stencil's 96 at 2304² and 40 steps and at
#            1152² and 90 steps, the Triton matmul's 54 at 1536³: measured on 2026-11-28 and sealed,
#            once the five above had checked the strategy of 2026-11-27 f and moved up.
#   sgemm_960, sgemm_512_4k, sgemm_2304, stencil_640, stencil_2816: the 225 at 960³, 512 x 4096 x
#            1024 and 2304 x 1536 x 2048, the stencil's 96 at 640² and 200 steps and at 2816² and 35
#            steps: measured on 2026-11-28 and sealed, once the six above had checked the centre
#            taken by its lower bound and moved up.
#   sgemm_1920, sgemm_256_4k, sgemm_3584_768, stencil_768, stencil_1664, stencil_1408, stencil_3840:
#            the 225 at 1920³, 256 x 4096 x 4096 and 3584 x 768 x 2048, the stencil's 96 at 768² and 150
#            steps, 1664² and 70, 1408² and 80, 3840² and 25: measured on 2026-11-28 and sealed, once
#            the five above had checked the strategy of 2026-11-28 b and moved up.
#   triton_1280, sgemm_1088, sgemm_832_3k, sgemm_2816_1k, sgemm_tall_192, stencil_960, stencil_1920,
#            stencil_4352: the Triton matmul's 54 at 1280³, the 225 at 1088³, 832 x 3072 x 2048, 2816 x
#            1024 x 1536 and 6144 x 192 x 3072, the stencil's 96 at 960² and 110 steps, 1920² and 50,
#            4352² and 18: measured on 2026-11-28 (d) and sealed, once the seven above had checked a
#            change and moved up.
#   sgemm_1216, sgemm_1536_640, sgemm_tall_320, stencil_1088, stencil_2176, stencil_5632: the 225 at
#            1216³, 1536 x 640 x 3072 and 10240 x 320 x 2048, the stencil's 96 at 1088² and 90 steps,
#            2176² and 40, 5632² and 10: measured on 2026-11-28 (d) and sealed, once the eight above
#            had checked the strategy unchanged and moved up; they checked a change (f) and moved up.
#   triton_2560, triton_3k, sgemm_2560, sgemm_768_6k, stencil_1600, stencil_2432: the Triton matmul's
#            54 at 2560³ and 3072³, the 225 at 2560³ and 768 x 6144 x 1024, the stencil's 96 at 1600²
#            and 70 steps and 2432² and 40: measured on 2026-11-28 (f) and sealed, once the six above
#            had checked a change and moved up, to check the next one (the Triton matmul most: its
#            misses are the farthest).
#   stencil_1216, stencil_1344, stencil_2688, stencil_2944: the stencil's 96 at 1216² and 90 steps,
#            1344² and 80, 2688² and 35, 2944² and 30: measured on 2026-12-01 and sealed, once the two
#            stencils above had checked the pattern move and moved up, to check the next change that
#            touches the stencil's climb (where most of the misses at 10 % now are).
#   sgemm_1344, sgemm_2k_768, sgemm_tall_448, sgemm_5k_1k: the 225 at 1344³, 2048 x 768 x 3072,
#            7168 x 448 x 2048 and 5120 x 1024 x 1536: measured on 2026-12-01 while the next change to
#            bayes (the centre at a run's last measurement) was being chosen, and not looked at until
#            it was (to check it, with the four stencils above).
#   stencil_704, stencil_1472, stencil_2112, stencil_3200, sgemm_1472, sgemm_2k_1280, sgemm_3k_640:
#            the stencil's 96 at 704² and 180 steps, 1472² and 70, 2112² and 45, 3200² and 25, the 225
#            at 1472³, 2048 x 1280 x 2560 and 3072 x 640 x 2048: measured on 2026-12-02 and sealed
#            (then in bench/data/sealed/) until they checked the next change to the strategies (bayes's
#            steps of two parameters, 2026-12-02, third session).
#   triton_1792: the Triton matmul's 54 at 1792³, measured and sealed likewise on 2026-12-02.
#   stencil_large_2k, stencil_large_3k, stencil_large_4k, sgemm_large_768, sgemm_large_1k_cube,
#            sgemm_large_3k_768: the stencil's 410 at 2048² and 50 steps, 3072² and 30, 4096² and 20
#            (the sizes of stencil_small, stencil_3k and stencil_mid), the 648 at 768³, 1024³ and
#            3072 x 768 x 2048: spaces of the size the autotune issue was filed on, measured on
#            2026-12-02 (later) to check the strategy unchanged there (carry EXAMPLES="matmul_tunable_large
#            stencil_tunable").
#   stencil_large_1536, stencil_large_2560, sgemm_large_1280, sgemm_large_6k_512: the stencil's 410
#            at 1536² and 80 steps and 2560² and 40, the 648 at 1280³ and 6144 x 512 x 1024: measured
#            on 2026-12-02 (third session) after bayes's steps of two parameters were chosen, to check
#            them at the size the autotune issue was filed on.
#   stencil_large_1792, stencil_large_2304, stencil_large_3584, stencil_large_5k, sgemm_large_1792,
#            sgemm_large_4k_1k, sgemm_large_tall_256: the stencil's 410 at 1792² and 60 steps, 2304² and
#            40, 3584² and 20, 5120² and 10, the 648 at 1792³, 4096 x 4096 x 1024 and 12288 x 256 x
#            1024: measured on 2026-12-02 (fifth session) and sealed before any change to the
#            strategies at 5 % of spaces of the issue's size was chosen, to check it.
#   stencil_large_1280, stencil_large_2816, stencil_large_4608: the stencil's 410 at 1280² and 100
#            steps, 2816² and 35, 4608² and 15: measured on 2026-12-02 (fifth session) and sealed
#            likewise, once the four stencils above had been looked at.
#   stencil_large_2432, stencil_large_3328, stencil_large_3840: the stencil's 410 at 2432² and 35
#            steps, 3328² and 25, 3840² and 20: measured on 2026-12-02 (sixth session) and sealed
#            before the next change to the local steps on that space was chosen, to check it.
#   stencil_832, stencil_1856, stencil_2624, stencil_3456, sgemm_1600, sgemm_2176, sgemm_3k_1536,
#            triton_2304: the stencil's 96 at 832² and 130 steps, 1856² and 55, 2624² and 35, 3456² and
#            22, the 225 at 1600³, 2176³ and 3072 x 1536 x 1024, the Triton matmul's 54 at 2304³:
#            sizes between those above, measured on 2026-12-03 (tenth session) and sealed, to check the
#            warm start from several earlier runs (chosen on the benchmark's landscapes, 2026-12-03,
#            ninth session) and the cold strategy, unchanged, on landscapes neither was chosen on.
#   softmax_long, softmax_short, softmax_odd: a row-wise softmax in Triton
#            (tests/gpu/programs/triton_softmax_tunable.py, triton_softmax_space.json: 80 configurations
#            of its chunk, rows per program and warps) over 4096 rows of 8192, 65536 of 1024 and 16384
#            of 3000, in fp32: a fourth kernel, a memory-bound reduction, measured on 2026-12-03
#            (twelfth session) to check the strategies, unchanged, on a kernel none of them was
#            chosen on.
#   rowsum_1k, rowsum_64k, rowsum_128, rowsum_8k: the sum of squares of each row of a matrix of
#            floats (examples/rowsum/rowsum_tunable, rowsum_space.json: 240 configurations of threads a
#            block, rows a block, vector width and loads in flight), 32768 rows of 1024, 512 of 65536,
#            262144 of 128 and 4096 of 8192: a fifth kernel and a space of the SGEMM's size, measured on
#            2026-12-04 (sixteenth session) and run once, before their bests were read, to check whether
#            the targets hold where 10 % of the space is 24 measurements, on a kernel none of the
#            strategies was chosen on (carry EXAMPLES=rowsum_tunable NO_TESTS=1).
#   triton_wall, triton_wall_2k: the Triton matmul at 4096³ and 2048³ over blocks of 64 to 256 and
#            BK of 32 to 128 with no constraint (tests/gpu/programs/triton_wall_space.json): the
#            largest need more shared memory than a block may have and fail to launch, a real
#            program's wall of failures beside its fastest configurations, where the strategies'
#            learning from failures is measured.
# (The SGEMM of examples/matmul was measured so on 2026-11-22: run_autotune.sh.)
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u +%F; } | tee "$out/machine.txt"
# The tables are named for the GPU that measured them (h100, h200).
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'H100|H200|A100|L40S?' | tr A-Z a-z || echo gpu)
exhaustive() {  # NAME SPACE TEMPLATE [OPTIONS...]
  local name=$1 space=$2 template=$3; shift 3
  local t0=$(date +%s%N)
  "$rp" autotune --space "$space" --cmd-template "$template" --backend cuda --strategy random --budget 100% \
    --out "$out/$name" --csv "$out/${name}_${gpu:-gpu}_exhaustive.csv" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "$name: exit $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/summary.txt"
  tail -4 "$out/$name.txt"; tail -2 "$out/$name.err"
}
# The SGEMM testbed at M N K: matmul_tunable over matmul_space.json (225 configurations), or with
# "large" matmul_tunable_large over matmul_large_space.json (648), the space its kernels were built for.
sgemm() {  # NAME [large] M N K
  local name=$1 binary=matmul_tunable space=examples/matmul/matmul_space.json; shift
  [ "$1" = large ] && { binary=matmul_tunable_large space=examples/matmul/matmul_large_space.json; shift; }
  exhaustive "$name" "$space" "$carry/examples/$binary $1 $2 $3 --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10" --timeout 60 --max-runs 2
}
# The stencil testbed's launch geometry at a size and step count: stencil_space.json (96
# configurations), or with "large" stencil_large_space.json (410).
stencil() {  # NAME [large] SIZE STEPS
  local name=$1 space=examples/stencil/stencil_space.json; shift
  [ "$1" = large ] && { space=examples/stencil/stencil_large_space.json; shift; }
  exhaustive "$name" "$space" "$carry/examples/stencil_tunable $1 $2 --bx {BX} --by {BY} --rows {ROWS}" --timeout 60 --max-runs 2
}
# The Triton matmul's blocks and warps at size³: triton_space.json (54 configurations), or with
# "wall" triton_wall_space.json (54, 10 of which run out of shared memory).
triton() {  # NAME SIZE [wall]
  local space=tests/gpu/programs/triton_space.json
  [ "${3:-}" = wall ] && space=tests/gpu/programs/triton_wall_space.json
  exhaustive "$1" "$space" \
    "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size $2" \
    --kernel matmul_kernel --timeout 120 --max-runs 1
}
# The Triton softmax's chunk, rows per program and warps over M rows of N (triton_softmax_space.json,
# 80 configurations): a memory-bound kernel of another kind than the matmuls and the stencil.
softmax() {  # NAME M N
  exhaustive "$1" tests/gpu/programs/triton_softmax_space.json \
    "python3 tests/gpu/programs/triton_softmax_tunable.py --block {BLOCK} --rows {ROWS} --warps {WARPS} --m $2 --n $3" \
    --kernel softmax_kernel --timeout 120 --max-runs 1
}
# The row sums of squares of a ROWS x COLS matrix (rowsum_space.json, 240 configurations).
rowsum() {  # NAME ROWS COLS
  exhaustive "$1" examples/rowsum/rowsum_space.json \
    "$carry/examples/rowsum_tunable $2 $3 --block {BLOCK} --rows-per-block {ROWS} --vec {VEC} --unroll {UNROLL}" \
    --timeout 60 --max-runs 2
}
# NAME KIND ARGUMENTS: every landscape this script measures, KIND one of the functions above.
landscapes="
stencil             stencil 8192 10
sgemm_wide          sgemm 4096 4096 256
sgemm_1k            sgemm 1024 1024 4096
sgemm_tall          sgemm 16384 96 2048
sgemm_512           sgemm 512 512 8192
sgemm_rect          sgemm 8192 1024 1024
sgemm_large         sgemm large 2048 2048 2048
sgemm_large_1k      sgemm large 1024 1024 4096
sgemm_large_wide    sgemm large 4096 4096 256
sgemm_large_tall    sgemm large 16384 96 2048
stencil_large       stencil large 8192 10
stencil_small       stencil 2048 50
stencil_mid         stencil 4096 20
triton              triton 2048
triton_1k           triton 1024
sgemm_large_rect    sgemm large 8192 1024 1024
sgemm_768           sgemm 768 768 768
sgemm_flat          sgemm 2048 2048 512
stencil_3k          stencil 3072 30
triton_4k           triton 4096
sgemm_1536          sgemm 1536 1536 1536
sgemm_3k            sgemm 3072 3072 1024
sgemm_kbig          sgemm 1024 2048 8192
sgemm_skinny        sgemm 4096 256 4096
stencil_1k          stencil 1024 100
stencil_6k          stencil 6144 10
sgemm_1280          sgemm 1280 1280 1280
sgemm_640           sgemm 640 1280 4096
sgemm_4k            sgemm 4096 4096 1024
sgemm_narrow        sgemm 6144 512 2048
stencil_1536        stencil 1536 60
stencil_5k          stencil 5120 10
sgemm_large_1536    sgemm large 1536 1536 1536
stencil_2560        stencil 2560 30
stencil_7k          stencil 7168 10
sgemm_896           sgemm 896 896 896
sgemm_384           sgemm 384 2048 2048
sgemm_3k_cube       sgemm 3072 3072 3072
sgemm_5k_flat       sgemm 5120 5120 512
sgemm_tall_256      sgemm 12288 256 1024
sgemm_deep          sgemm 2048 1024 4096
sgemm_large_mid     sgemm large 2560 1536 1024
sgemm_1792          sgemm 1792 1792 1792
sgemm_2560_512      sgemm 2560 512 4096
sgemm_1k_4k         sgemm 1024 4096 1024
sgemm_8k_flat       sgemm 8192 8192 256
sgemm_320           sgemm 320 4096 2048
stencil_3584        stencil 3584 20
stencil_1280        stencil 1280 80
sgemm_1152          sgemm 1152 1152 1152
sgemm_448           sgemm 448 3072 2048
sgemm_6k_k512       sgemm 6144 6144 512
sgemm_tall_128      sgemm 8192 128 4096
sgemm_2k_4k         sgemm 2048 4096 2048
stencil_4608        stencil 4608 15
stencil_1792        stencil 1792 60
sgemm_1664          sgemm 1664 1664 1664
sgemm_576           sgemm 576 2560 2048
sgemm_tall_384      sgemm 4096 384 2048
stencil_3328        stencil 3328 25
stencil_896         stencil 896 120
sgemm_1408          sgemm 1408 1408 1408
sgemm_704           sgemm 704 2048 2048
sgemm_3k_512        sgemm 3072 512 3072
stencil_2304        stencil 2304 40
stencil_1152        stencil 1152 90
triton_1536         triton 1536
sgemm_960           sgemm 960 960 960
sgemm_512_4k        sgemm 512 4096 1024
sgemm_2304          sgemm 2304 1536 2048
stencil_640         stencil 640 200
stencil_2816        stencil 2816 35
sgemm_1920          sgemm 1920 1920 1920
sgemm_256_4k        sgemm 256 4096 4096
sgemm_3584_768      sgemm 3584 768 2048
stencil_768         stencil 768 150
stencil_1664        stencil 1664 70
stencil_1408        stencil 1408 80
stencil_3840        stencil 3840 25
triton_1280         triton 1280
sgemm_1088          sgemm 1088 1088 1088
sgemm_832_3k        sgemm 832 3072 2048
sgemm_2816_1k       sgemm 2816 1024 1536
sgemm_tall_192      sgemm 6144 192 3072
stencil_960         stencil 960 110
stencil_1920        stencil 1920 50
stencil_4352        stencil 4352 18
sgemm_1216          sgemm 1216 1216 1216
sgemm_1536_640      sgemm 1536 640 3072
sgemm_tall_320      sgemm 10240 320 2048
stencil_1088        stencil 1088 90
stencil_2176        stencil 2176 40
stencil_5632        stencil 5632 10
triton_wall         triton 4096 wall
triton_wall_2k      triton 2048 wall
triton_2560         triton 2560
triton_3k           triton 3072
sgemm_2560          sgemm 2560 2560 2560
sgemm_768_6k        sgemm 768 6144 1024
stencil_1600        stencil 1600 70
stencil_2432        stencil 2432 40
stencil_1216        stencil 1216 90
stencil_1344        stencil 1344 80
stencil_2688        stencil 2688 35
stencil_2944        stencil 2944 30
sgemm_1344          sgemm 1344 1344 1344
sgemm_2k_768        sgemm 2048 768 3072
sgemm_tall_448      sgemm 7168 448 2048
sgemm_5k_1k         sgemm 5120 1024 1536
stencil_704         stencil 704 180
stencil_1472        stencil 1472 70
stencil_2112        stencil 2112 45
stencil_3200        stencil 3200 25
sgemm_1472          sgemm 1472 1472 1472
sgemm_2k_1280       sgemm 2048 1280 2560
sgemm_3k_640        sgemm 3072 640 2048
triton_1792         triton 1792
stencil_large_2k    stencil large 2048 50
stencil_large_4k    stencil large 4096 20
sgemm_large_1k_cube sgemm large 1024 1024 1024
sgemm_large_3k_768  sgemm large 3072 768 2048
stencil_large_3k    stencil large 3072 30
sgemm_large_768     sgemm large 768 768 768
stencil_large_1536  stencil large 1536 80
stencil_large_2560  stencil large 2560 40
sgemm_large_1280    sgemm large 1280 1280 1280
sgemm_large_6k_512  sgemm large 6144 512 1024
stencil_large_1792  stencil large 1792 60
stencil_large_2304  stencil large 2304 40
stencil_large_3584  stencil large 3584 20
stencil_large_5k    stencil large 5120 10
sgemm_large_1792    sgemm large 1792 1792 1792
sgemm_large_4k_1k   sgemm large 4096 4096 1024
sgemm_large_tall_256 sgemm large 12288 256 1024
stencil_large_1280  stencil large 1280 100
stencil_large_2816  stencil large 2816 35
stencil_large_4608  stencil large 4608 15
stencil_large_2432  stencil large 2432 35
stencil_large_3328  stencil large 3328 25
stencil_large_3840  stencil large 3840 20
stencil_832         stencil 832 130
stencil_1856        stencil 1856 55
stencil_2624        stencil 2624 35
stencil_3456        stencil 3456 22
sgemm_1600          sgemm 1600 1600 1600
sgemm_2176          sgemm 2176 2176 2176
sgemm_3k_1536       sgemm 3072 1536 1024
triton_2304         triton 2304
softmax_long        softmax 4096 8192
softmax_short       softmax 65536 1024
softmax_odd         softmax 16384 3000
rowsum_1k           rowsum 32768 1024
rowsum_64k          rowsum 512 65536
rowsum_128          rowsum 262144 128
rowsum_8k           rowsum 4096 8192
"
written=(summary.txt machine.txt)  # what this run leaves in $out
for name in ${LANDSCAPES:-stencil sgemm_wide}; do
  row=$(awk -v n="$name" '$1 == n' <<< "$landscapes")
  if [ -z "$row" ]; then echo "unknown landscape $name" >&2; continue; fi
  read -r _ kind arguments <<< "$row"
  # shellcheck disable=SC2086 # the table's arguments are words of this script, split on purpose
  "$kind" "$name" $arguments
  rm -rf "${out:?}/$name"
  written+=("${name}_${gpu:-gpu}_exhaustive.csv" "$name.txt" "$name.err")
done
# PACK=1: the tables, summary and machine in one landscapes.tgz in place of what this run wrote, for
# a device call that brings back only a few files; what else is in $out (another script's output)
# stays.
if [ -n "${PACK:-}" ]; then
  (cd "$out" && tar czf landscapes.tgz -- *_exhaustive.csv summary.txt machine.txt && rm -f -- "${written[@]}")
fi
true
