#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="matmul_tunable_large stencil_tunable" WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`
# and, beside its rocm-perf, the build before bayes's steps of two parameters as bin/rocm-perf-before:
# those steps live, at the size of space the autotune issue was filed on. The stencil's 410 launch
# geometries at 2048² and 50 steps at 10 % (41 measured; bench/data/stencil_large_2k_h200_exhaustive.csv,
# whose best, 1024 threads and 16 rows, lies on a ridge: the replays found one within 3 % at 10 % in
# 96 of 100 seeds with the steps, 61 without) and the SGEMM's 648 at 1536³ at 5 % (33 measured;
# sgemm_large_1536_h100_exhaustive.csv, measured on an H100: 69 and 8), seeds SEEDS (default 1 to 3),
# by each build in turn. Per run, the best found and the configurations in the order measured in
# summary.txt (scripts/gpu/autotune_run_summary.py); each run's files (scripts/gpu/autotune_run.sh)
# in runs.tgz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
run() {  # BUILD NAME SPACE BUDGET TEMPLATE SEED
  autotune_run "$1_$2_seed$6" "$carry/bin/$1" --space "$3" --cmd-template "$5" --budget "$4" --timeout 60 --max-runs 2 --seed "$6"
}
for seed in ${SEEDS:-1 2 3}; do
  for build in rocm-perf rocm-perf-before; do
    run "$build" stencil_2048 examples/stencil/stencil_large_space.json 10% \
      "$carry/examples/stencil_tunable 2048 50 --bx {BX} --by {BY} --rows {ROWS}" "$seed"
    run "$build" sgemm_1536 examples/matmul/matmul_large_space.json 5% \
      "$carry/examples/matmul_tunable_large 1536 1536 1536 --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10" "$seed"
  done
done
autotune_pack runs.tgz
